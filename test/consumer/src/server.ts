// A backend's use of the proxy and a test setup's use of the sandbox.
import * as proxy from 'embedded-wallet-signer/proxy';
import { startSandbox, type RunningSandbox, type SandboxOptions } from 'embedded-wallet-signer/sandbox';

export const createProxy: typeof proxy.createProxy = proxy.createProxy;
export type Options = proxy.ProxyOptions;
export const toNodeHandler: typeof proxy.toNodeHandler = proxy.toNodeHandler;

export async function sandbox(): Promise<string> {
  const options: SandboxOptions = { port: 0, log: false };
  const running: RunningSandbox = await startSandbox(options);
  await running.close();
  return running.url;
}
