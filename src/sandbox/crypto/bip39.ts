/**
 * BIP-39 mnemonics for sandbox wallets: entropy from node:crypto, checksum with @noble/hashes
 * SHA-256, words from the English list of @scure/bip39 (an optional peer: loaded on first use, see
 * peers.ts). A wallet keeps its entropy; the words are made when it is exported.
 */
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { bip39English } from '../peers.js';

/** Words for `entropy` (16–32 bytes, a multiple of 4): ENT bits + ENT/32 checksum bits, 11 bits a word. */
export async function entropyToMnemonic(entropy: Uint8Array): Promise<string> {
  if (entropy.length < 16 || entropy.length > 32 || entropy.length % 4 !== 0) {
    throw new RangeError('entropy must be 16, 20, 24, 28 or 32 bytes');
  }
  const checksumBits = entropy.length / 4;
  const hash = sha256(entropy);
  let bits = '';
  for (const byte of entropy) bits += byte.toString(2).padStart(8, '0');
  bits += (hash[0] as number).toString(2).padStart(8, '0').slice(0, checksumBits);
  const wordlist = await bip39English();
  const words: string[] = [];
  for (let at = 0; at < bits.length; at += 11) {
    words.push(wordlist[Number.parseInt(bits.slice(at, at + 11), 2)] as string);
  }
  return words.join(' ');
}

/** Fresh entropy for a 12-word mnemonic (128 bits). */
export function generateMnemonicEntropy(): Uint8Array {
  return new Uint8Array(randomBytes(16));
}
