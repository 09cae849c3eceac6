/** The fenced ```ts blocks of a markdown text, in order (shared by the README tests). */
export function tsBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  const fence = /^```ts[ \t]*\n([\s\S]*?)^```[ \t]*$/gm;
  for (let match = fence.exec(markdown); match !== null; match = fence.exec(markdown)) blocks.push(match[1] ?? '');
  return blocks;
}
