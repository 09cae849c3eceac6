/** The JSON of a response body, or undefined when it is empty or not JSON (tests assert on `text` then). */
export function jsonOrUndefined(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
