// Stored pool items and whether Python's pool_put prunes them (`_prune_pool` of backend.py).
// Shared by the contract suite (both backends) and the cross-language test (the reference).

export interface PoolPruneCase {
  id: string;
  raw: Buffer;
  pruned: boolean;
}

const c = (id: string, raw: string | Buffer, pruned: boolean): PoolPruneCase => ({ id, raw: typeof raw === "string" ? Buffer.from(raw, "utf8") : raw, pruned });

/** `past` and `future`: unix seconds well before and after the test runs. */
export function poolPruneCases(past: number, future: number): PoolPruneCase[] {
  return [
    c("live", `{"p": "aGk=", "t": {}, "x": ${future}}`, false),
    c("no-expiry", '{"p": "aGk=", "t": {"a": 1}, "x": null}', false),
    c("no-x", '{"p": "aGk=", "t": {}}', false),
    c("tags-null", '{"p": "aGk=", "t": null, "x": null}', false),
    c("tags-list", '{"p": "aGk=", "t": [1, 2], "x": null}', false),
    c("b64-newline", '{"p": "aGVs\\nbG8=", "t": {}, "x": null}', false),
    c("b64-junk", '{"p": "a-G_k!=", "t": {}, "x": null}', false),
    c("b64-after-padding", '{"p": "aGk=trailing", "t": {}, "x": null}', false),
    c("x-nan", '{"p": "", "t": {}, "x": NaN}', false),
    c("x-infinity", '{"p": "", "t": {}, "x": Infinity}', false),
    c("x-int-future", `{"p": "", "t": {}, "x": ${Math.ceil(future)}}`, false),
    c("spaced", ` { "t" : {} , "p" : "aGk=" } `, false),
    c("expired", `{"p": "aGk=", "t": {}, "x": ${past}}`, true),
    c("expired-int", '{"p": "", "t": {}, "x": 1000}', true),
    c("x-minus-infinity", '{"p": "", "t": {}, "x": -Infinity}', true),
    c("x-true", '{"p": "", "t": {}, "x": true}', true),
    c("not-json", "{", true),
    c("not-utf8", Buffer.from([0x7b, 0xff, 0x7d]), true),
    c("bom", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"p": "", "t": {}, "x": null}')]), true),
    c("a-list", '[{"p": "", "t": {}}]', true),
    c("a-string", '"p"', true),
    c("no-p", '{"t": {}, "x": null}', true),
    c("no-t", '{"p": "", "x": null}', true),
    c("p-number", '{"p": 5, "t": {}, "x": null}', true),
    c("p-null", '{"p": null, "t": {}, "x": null}', true),
    c("p-non-ascii", '{"p": "aGk\\u00e9", "t": {}, "x": null}', true),
    c("p-bad-padding", '{"p": "aGk", "t": {}, "x": null}', true),
    c("p-one-char-over", '{"p": "aGkab", "t": {}, "x": null}', true),
  ];
}
