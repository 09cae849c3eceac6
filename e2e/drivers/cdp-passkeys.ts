/**
 * A device's virtual passkey authenticator in Chromium, over CDP. CDP's virtual authenticators are a
 * page's, where Firefox's (Marionette's) is the browser process's; so that one journey works in
 * both, this one follows the tab into the windows it opens (the signer's ceremony window,
 * src/signer/frame/popup.ts): each gets an authenticator of its own holding the credentials the
 * device made so far (WebAuthn.addCredential), and a credential made or used there is kept
 * (WebAuthn.credentialAdded, credentialAsserted: the window closes right after its ceremony).
 */
import type { BrowserContext, CDPSession, Page } from '@playwright/test';
import type { VirtualPasskey } from './driver.js';

/** What CDP says of a credential (WebAuthn.Credential), of which the device keeps every field. */
interface Credential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  signCount: number;
}

/** Internal, resident keys, user verified, presence simulated (as the test kit's `addVirtualPasskey`). */
const OPTIONS = { protocol: 'ctap2' as const, transport: 'internal' as const, hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true };

export class CdpPasskeys implements VirtualPasskey {
  /** Every credential of the device, by id (base64, as CDP gives it), with its private key. */
  private readonly held = new Map<string, Credential>();
  private readonly attached: Array<{ cdp: CDPSession; authenticatorId: string; page: Page }> = [];

  constructor(private readonly context: BrowserContext) {}

  /** Adds an authenticator to `page`, holding the device's credentials. */
  async attach(page: Page): Promise<void> {
    const cdp = await this.context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', { options: OPTIONS });
    for (const credential of this.held.values()) await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
    const keep = ({ credential }: { credential: Credential }) => void this.held.set(credential.credentialId, credential);
    cdp.on('WebAuthn.credentialAdded', keep);
    cdp.on('WebAuthn.credentialAsserted', keep);
    this.attached.push({ cdp, authenticatorId, page });
  }

  async credentials(): Promise<Array<{ credentialId: string; rpId: string; signCount: number }>> {
    for (const { cdp, authenticatorId, page } of this.attached) {
      if (page.isClosed()) continue;
      for (const credential of (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials) this.held.set(credential.credentialId, credential);
    }
    return [...this.held.values()].map((c) => ({ credentialId: Buffer.from(c.credentialId, 'base64').toString('base64url'), rpId: c.rpId ?? '', signCount: c.signCount }));
  }

  async remove(): Promise<void> {
    for (const { cdp, authenticatorId, page } of this.attached.splice(0)) if (!page.isClosed()) await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
  }
}
