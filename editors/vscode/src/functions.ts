// The C function around the cursor, from the text alone (no C extension needed). A forward scan keeps
// the brace depth: at depth 0, `name(` is a candidate header, a `;` drops it (a prototype), and the `{`
// that follows opens its body, which lasts until the depth is back at 0.

function code(line: string, inComment: boolean): [string, boolean] {
  let out = "";
  let i = 0;
  while (i < line.length) {
    if (inComment) {
      const end = line.indexOf("*/", i);
      if (end < 0) return [out, true];
      i = end + 2;
      inComment = false;
    } else if (line.startsWith("/*", i)) {
      inComment = true;
      i += 2;
    } else if (line.startsWith("//", i)) {
      break;
    } else if (line[i] === '"' || line[i] === "'") {
      const q = line[i];
      i += 1;
      while (i < line.length && line[i] !== q) i += line[i] === "\\" ? 2 : 1;
      i += 1;
      out += " ";
    } else {
      out += line[i];
      i += 1;
    }
  }
  return [out, inComment];
}

const NOT_A_NAME = /^(if|for|while|switch|return|sizeof|__attribute__|__declspec|__asm__|asm|_Alignas|alignas)$/;

export function functionAt(lines: string[], line: number): string | undefined {
  let depth = 0;
  let candidate: string | undefined;
  let current: string | undefined; // the function whose body (or header) we are in
  let inComment = false;
  let parens = 0;
  for (let i = 0; i <= Math.min(line, lines.length - 1); i++) {
    let text: string;
    [text, inComment] = code(lines[i], inComment);
    if (text.trimStart().startsWith("#")) continue; // preprocessor lines
    const re = /([A-Za-z_]\w*)\s*\(|[{};=()]/g;
    let m: RegExpExecArray | null;
    let closed: string | undefined;
    while ((m = re.exec(text))) {
      const tok = m[0];
      if (m[1] !== undefined || tok === "(") {
        if (m[1] !== undefined && depth === 0 && parens === 0 && !NOT_A_NAME.test(m[1])) {
          candidate = m[1]; // the last name( outside parentheses: attributes come before it
          current = candidate; // the cursor may sit on the header
        }
        parens += 1;
        continue;
      }
      if (tok === ")") {
        parens = Math.max(0, parens - 1);
      } else if (tok === "{") {
        if (depth === 0) current = candidate;
        depth += 1;
      } else if (tok === "}") {
        depth = Math.max(0, depth - 1);
        if (depth === 0) {
          closed = current; // the cursor may sit on the closing brace
          current = undefined;
          candidate = undefined;
        }
      } else if (depth === 0) { // ';' or '=' at file scope: a declaration, not a definition
        candidate = undefined;
        current = undefined;
      }
    }
    if (i === line) return current ?? closed;
  }
  return undefined;
}
