/**
 * A virtual WebAuthn authenticator for Firefox ESR, through Marionette (WebDriver classic's
 * protocol in Firefox), which implements the WebAuthn spec's automation commands
 * (`WebAuthn:AddVirtualAuthenticator`, `WebAuthn:GetCredentials`, `WebAuthn:RemoveVirtualAuthenticator`).
 * WebDriver BiDi, which puppeteer speaks, has no webauthn module; geckodriver is not installable
 * here (its npm package downloads a binary): this is the few lines of its wire a journey needs.
 *
 * Seen on Firefox ESR 153 (2026-11-29): the WebAuthn commands answer without a Marionette session
 * (`WebDriver:NewSession` is refused, "Maximum number of active sessions", while puppeteer's BiDi
 * session is open); the authenticator is the process's (nsIWebAuthnService), so it answers the
 * ceremonies of every browser context and window of that Firefox, and is used only with
 * `security.webauth.webauthn_enable_softtoken` on (off: `navigator.credentials.create` is refused,
 * NotAllowedError, and the authenticator holds nothing).
 */
import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import type { VirtualPasskey } from './driver.js';

/** How Firefox starts with Marionette listening (port chosen by Firefox, written to the profile's MarionetteActivePort). */
export const MARIONETTE_LAUNCH = {
  args: ['--marionette'],
  extraPrefsFirefox: {
    'marionette.port': 0,
    // The virtual authenticators answer only through the soft token; no real USB token is asked.
    'security.webauth.webauthn_enable_softtoken': true,
    'security.webauth.webauthn_enable_usbtoken': false,
  },
};

type Answer = [1, number, { error: string; message: string } | null, { value: unknown } | null];

/** One Marionette connection: `<length>:<json>` frames, commands `[0, id, name, params]`, answers `[1, id, error, result]`. */
export class Marionette {
  private buffered = Buffer.alloc(0);
  private lastId = 0;
  private readonly waiting = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();
  private ended: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (data) => this.received(data));
    // Firefox gone (a crash, the worker's teardown): every command waiting, and any later, fails with why.
    const end = (error: Error): void => {
      this.ended ??= error;
      for (const { reject } of this.waiting.values()) reject(this.ended);
      this.waiting.clear();
    };
    socket.on('error', (error) => end(new Error(`Marionette connection: ${error.message}`)));
    socket.on('close', () => end(new Error('Marionette connection closed')));
  }

  /** Connects to the Marionette of the Firefox whose profile is `profile` (started with {@link MARIONETTE_LAUNCH}). */
  static async of(profile: string): Promise<Marionette> {
    let port = 0;
    // Written once Marionette listens, just after start-up.
    await expect
      .poll(async () => (port = Number(await readFile(join(profile, 'MarionetteActivePort'), 'utf8').catch(() => '0'))), { message: 'Marionette listening', timeout: 30_000 })
      .toBeGreaterThan(0);
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new Marionette(socket);
  }

  private received(data: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, data]);
    for (;;) {
      const colon = this.buffered.indexOf(0x3a);
      if (colon < 0) return;
      const length = Number(this.buffered.subarray(0, colon).toString('ascii'));
      if (this.buffered.length < colon + 1 + length) return;
      const message = JSON.parse(this.buffered.subarray(colon + 1, colon + 1 + length).toString('utf8')) as unknown;
      this.buffered = this.buffered.subarray(colon + 1 + length);
      // The first frame is the server's hello (an object), not an answer.
      if (Array.isArray(message) && message[0] === 1) this.waiting.get(message[1] as number)?.resolve(message as Answer);
    }
  }

  /** Sends a command and resolves to its answer's `value` (an error answer rejects). */
  async send(name: string, params: Record<string, unknown>): Promise<unknown> {
    if (this.ended !== undefined) throw this.ended;
    const id = ++this.lastId;
    const answered = new Promise<Answer>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    const body = JSON.stringify([0, id, name, params]);
    this.socket.write(`${Buffer.byteLength(body)}:${body}`);
    const [, , error, result] = await answered;
    this.waiting.delete(id);
    if (error !== null) throw new Error(`Marionette ${name}: ${error.error}: ${error.message}`);
    return result?.value;
  }

  close(): void {
    this.socket.end();
  }

  /** A platform authenticator (CTAP2, internal, resident keys, user verified): the one Chromium's journeys get over CDP. */
  async addVirtualPasskey(): Promise<VirtualPasskey> {
    const authenticatorId = (await this.send('WebAuthn:AddVirtualAuthenticator', {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    })) as string;
    return {
      credentials: async () => ((await this.send('WebAuthn:GetCredentials', { authenticatorId })) as Array<{ credentialId: string; rpId: string; signCount: number }>).map((c) => ({ credentialId: c.credentialId, rpId: c.rpId, signCount: c.signCount })),
      remove: async () => {
        await this.send('WebAuthn:RemoveVirtualAuthenticator', { authenticatorId });
      },
    };
  }
}
