/** The demo stack in frame mode for the journeys of playwright.modes.config.ts (e2e/global-setup.ts). */
import type { FullConfig } from '@playwright/test';
import { setUpDemo } from './global-setup.js';

export default async function globalSetup(_config: FullConfig): Promise<() => Promise<void>> {
  return setUpDemo('frame');
}
