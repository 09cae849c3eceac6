/**
 * The HPKE `info` of wire reference §7. Apart from hpke.ts so that this public constant does not
 * bring the HPKE code into the startup chunk (a bundler places whole files).
 */
export const HPKE_INFO = 'turnkey_hpke';
