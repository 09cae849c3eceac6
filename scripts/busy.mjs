#!/usr/bin/env node
// Runs a command with the CPU deliberately loaded: one busy-loop worker thread per core spins for as
// long as the command runs, so that a test that assumes timing (a fixed sleep, a count of event-loop
// turns standing in for an event) fails here before it fails on a contributor's busy machine.
// Bounded: the workers stop when the command exits, and each stops on its own after BUSY_MAX_MS
// (default 20 min) whatever happens, so a hung parent can never keep CI spinning.
//
//   node scripts/busy.mjs [--workers N] -- <command> [args...]
//   node scripts/busy.mjs -- npx vitest run --project node test/session test/proxy
//
// Exits with the command's exit code (1 if it could not be started or was killed by a signal).
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

const args = process.argv.slice(2);
const dash = args.indexOf('--');
const own = dash === -1 ? [] : args.slice(0, dash);
const command = dash === -1 ? args : args.slice(dash + 1);
if (command.length === 0) {
  console.error('usage: node scripts/busy.mjs [--workers N] -- <command> [args...]');
  process.exit(2);
}
const flag = own.indexOf('--workers');
const workers = flag === -1 ? availableParallelism() : Number(own[flag + 1]);
if (!Number.isInteger(workers) || workers < 0) {
  console.error(`busy: --workers must be a whole number, got ${own[flag + 1]}`);
  process.exit(2);
}
const maxMs = Number(process.env.BUSY_MAX_MS ?? 20 * 60_000);

// Each worker spins in slices of 50 ms, checking its deadline and a shared stop flag between them.
const stop = new Int32Array(new SharedArrayBuffer(4));
const spin = `
  const { workerData } = require('node:worker_threads');
  const stop = new Int32Array(workerData.stop);
  const end = Date.now() + workerData.maxMs;
  let x = 0;
  while (Atomics.load(stop, 0) === 0 && Date.now() < end) {
    const slice = Date.now() + 50;
    while (Date.now() < slice) x = (x * 1103515245 + 12345) >>> 0;
  }
`;
const pool = Array.from({ length: workers }, () => new Worker(spin, { eval: true, workerData: { stop: stop.buffer, maxMs } }));
for (const w of pool) w.unref();
console.error(`busy: ${workers} busy-loop worker(s) for at most ${Math.round(maxMs / 1000)} s around: ${command.join(' ')}`);

const started = Date.now();
const child = spawn(command[0], command.slice(1), { stdio: 'inherit', shell: process.platform === 'win32' });
const forward = (signal) => child.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);

function finish(code) {
  Atomics.store(stop, 0, 1);
  console.error(`busy: command ended (exit ${code}) after ${((Date.now() - started) / 1000).toFixed(1)} s; workers stopped`);
  Promise.all(pool.map((w) => w.terminate())).finally(() => process.exit(code));
}
child.on('error', (error) => {
  console.error(`busy: could not start ${command[0]}: ${error.message}`);
  finish(1);
});
child.on('exit', (code, signal) => finish(code ?? (signal ? 1 : 0)));
