import type { Metadata } from "next";

import { AutomationsIndex } from "./_components/automations-index";

export const metadata: Metadata = { title: "Automations" };

export default function AutomationsPage() {
  return <AutomationsIndex />;
}
