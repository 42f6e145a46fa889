import type { Metadata } from "next";

import { AutomationDetail } from "./_components/automation-detail";

interface Props {
  params: Promise<{ type: string }>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  // Unlike the page's, these params arrive decoded already (Next 16).
  const { type } = await params;
  return { title: `${type} · Automations` };
}

export default async function AutomationPage({ params }: Props) {
  const { type } = await params;
  return <AutomationDetail automationType={safeDecode(type)} />;
}

// The page's params arrive percent-encoded (names may hold `:`, spaces, `%`); a malformed
// escape is shown as typed rather than failing the page.
function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
