import { Overview } from "./_overview/overview";

export default function OverviewPage() {
  return <Overview />;
}
