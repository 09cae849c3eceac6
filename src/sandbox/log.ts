/**
 * One structured JSON line per request: `{ time, method, path, status, code?, ms }`.
 *
 * Only the path is logged (never the query string, headers or body), so no key, OTP code, token,
 * mnemonic or platform secret can reach a log line: ids in paths are record ids, not secrets.
 * Unexpected handler failures add `{ error: <message> }` for the operator (messages are ours).
 *
 * The sink is injectable: `startSandbox({ log: false })` silences it, `log: line => lines.push(line)`
 * captures it (tests scan captured lines for secrets).
 */
export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  code?: string;
  ms: number;
  error?: string;
}

/** Receives the sandbox's request log, one JSON line per request (never a secret, code or key). */
export type LogSink = (line: string) => void;

export interface Logger {
  request(entry: RequestLogEntry): void;
}

export function createLogger(sink: LogSink | false | undefined, clock: { iso(): string }): Logger {
  if (sink === false) return { request: () => undefined };
  const write: LogSink = sink ?? ((line) => process.stdout.write(`${line}\n`));
  return {
    request(entry) {
      write(JSON.stringify({ time: clock.iso(), ...entry }));
    },
  };
}
