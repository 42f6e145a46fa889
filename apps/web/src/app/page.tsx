import { PageHeader } from "@/components/page-header";

// Replaced by the live overview in the next commit.
export default function OverviewPage() {
  return <PageHeader title="Overview" description="Workers, queues, pools and Redis health at a glance." />;
}
