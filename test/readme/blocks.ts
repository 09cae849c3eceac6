/** The fenced ```ts (or ```tsx) blocks of a markdown text, in order (shared by the README tests). */
export function tsBlocks(markdown: string, lang: 'ts' | 'tsx' = 'ts'): string[] {
  const blocks: string[] = [];
  const fence = new RegExp(`^\`\`\`${lang}[ \\t]*\\n([\\s\\S]*?)^\`\`\`[ \\t]*$`, 'gm');
  for (let match = fence.exec(markdown); match !== null; match = fence.exec(markdown)) blocks.push(match[1] ?? '');
  return blocks;
}
