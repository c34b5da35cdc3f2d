/**
 * How deeply JSON text nests, measured before it is parsed: reviews from the network are refused
 * when too deep, before a tree that recursive walks would choke on is built.
 */

/**
 * Whether arrays and objects nest deeper than `limit` levels in JSON text (what is in strings aside):
 * read from the text in one pass, so that a review too deep is refused before its tree is built,
 * and the tree is not walked again to measure it.
 */
export function nestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      if (++depth > limit) return true;
    } else if (char === '}' || char === ']') {
      depth--;
    }
  }
  return false;
}
