// A stand-in approval screen for the node tests of the signing policy (approval-route.test.ts,
// approval-deadline.test.ts): it keeps the prompt's approve callback for the test to call when it likes.
import type { RenderApproval } from '../../src/signer/frame/approval.js';

/** A renderer that keeps the prompt's approve callback for the test to call when it likes. */
export function holding(): { render: RenderApproval; click(): void; shown: number } {
  const state = { approve: undefined as ((e: Event) => void) | undefined, shown: 0 };
  return {
    render: (_d, onApprove) => {
      state.approve = onApprove;
      state.shown++;
      return () => {
        state.approve = undefined;
      };
    },
    click: () => state.approve?.({ isTrusted: true, type: 'click' } as Event),
    get shown() {
      return state.shown;
    },
  };
}
