/**
 * The first key that appears twice in one object of a JSON text that `JSON.parse` already accepted
 * (`undefined` when none). `JSON.parse` silently keeps the last copy; another parser may keep the
 * first, so the proxy and the sandbox refuse such bodies: what a signer or an authorize hook saw
 * must be what the service acts on.
 *
 * One pass: a stack of the key sets of the open objects (`null` for arrays); a string right after
 * `{` or after `,` inside an object is a key.
 */
export function duplicateKey(text: string): string | undefined {
  const stack: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const keys = stack[stack.length - 1];
      if (expectKey && keys) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
      }
      expectKey = false;
      i = j;
    } else if (c === '{') {
      stack.push(new Set());
      expectKey = true;
    } else if (c === '[') {
      stack.push(null);
      expectKey = false;
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectKey = false;
    } else if (c === ',') {
      expectKey = stack[stack.length - 1] instanceof Set;
    }
  }
  return undefined;
}
