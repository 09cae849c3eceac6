/** Builds the static signer page into `outDir` (see signer-page.mjs); resolves to esbuild's metafile. */
export function buildSignerPage(outDir: string, options?: { minify?: boolean }): Promise<{ outputs: Record<string, { bytes: number }> }>;
