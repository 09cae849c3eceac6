#!/usr/bin/env node
/**
 * `embedded-wallet-signer-page --config signer-config.json [--port 5174] [--host 127.0.0.1] [--dir <built page>]`:
 * serves the signer page for development on a port of its own (another origin than the app), with
 * the host configuration from the file and the headers of headers.ts.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseSignerConfig } from '../frame/config.js';
import { serveSignerPage } from './serve.js';
import { packagedSignerPage } from './vite-plugin.js';

const { values } = parseArgs({ options: { config: { type: 'string' }, port: { type: 'string', default: '5174' }, host: { type: 'string', default: '127.0.0.1' }, dir: { type: 'string' } } });
if (values.config === undefined) {
  console.error('usage: embedded-wallet-signer-page --config signer-config.json [--port 5174] [--host 127.0.0.1] [--dir dist/signer-page]');
  process.exit(2);
}
try {
  const config = parseSignerConfig(JSON.parse(readFileSync(values.config, 'utf8')));
  const server = await serveSignerPage({ dir: values.dir ?? packagedSignerPage(), config, port: Number(values.port), host: values.host });
  // Stop handlers before the line a parent waits for, so a stop right after it exits cleanly.
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.info(`Signer page: ${server.url} (parents allowed: ${config.allowedParentOrigins.join(', ')})`);
} catch (error) {
  console.error(`The signer page could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
