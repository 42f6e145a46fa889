import type { Metadata } from "next";

import { AutomationDetail } from "./_components/automation-detail";

interface Props {
  params: Promise<{ type: string }>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { type } = await params;
  return { title: `${decodeURIComponent(type)} · Automations` };
}

export default async function AutomationPage({ params }: Props) {
  const { type } = await params;
  return <AutomationDetail automationType={decodeURIComponent(type)} />;
}
