import { BaselinePanel } from '../baseline-panel';

export default function Page() {
  return <BaselinePanel />;
}
