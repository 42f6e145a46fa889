// First, before any schema is made: a browser parses without `new Function` (./browser.ts).
import "./browser";

export * from "./redis";
export * from "./api";
export * from "./events";
export * from "./merge-patch";
export * from "./watch";
export * from "./error-group";
export * from "./search";
export * from "./error-groups-api";
export * from "./auth";
export * from "./audit";
