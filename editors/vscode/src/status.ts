// The status bar item: background jobs while they run, then the last verified result.
export interface ServerStatus {
  running: number;
  message?: string;
  last?: string | null;
}

export interface StatusView {
  text: string;
  tooltip: string;
}

const MAX = 48;

function shorten(s: string): string {
  return s.length > MAX ? `${s.slice(0, MAX - 1)}\u2026` : s;
}

export function statusView(st: ServerStatus | undefined, state: "starting" | "running" | "stopped" | "failed"): StatusView {
  if (state === "failed") {
    return { text: "$(error) SuperCoder", tooltip: "The SuperCoder server is not running: see the log (SuperCoder: Show Log)." };
  }
  if (state === "stopped" || state === "starting") {
    return { text: "$(circle-slash) SuperCoder", tooltip: `SuperCoder server ${state}` };
  }
  if (st && st.running > 0) {
    const what = st.message ? `: ${st.message.replace(/^supercoder: /, "")}` : "";
    return {
      text: `$(sync~spin) SuperCoder ${st.running} job${st.running === 1 ? "" : "s"}`,
      tooltip: `SuperCoder is optimizing in the background${what}${st.last ? `\nLast result: ${st.last}` : ""}`,
    };
  }
  if (st && st.last) {
    // "popcount: 6.70x faster (95% CI ...), uses popcnt - verified on ..." -> "popcount 6.70x"
    const m = /^(\S+): ([\d.]+x) faster/.exec(st.last);
    return { text: `$(zap) ${shorten(m ? `${m[1]} ${m[2]}` : st.last)}`, tooltip: `SuperCoder: ${st.last}` };
  }
  return { text: "$(zap) SuperCoder", tooltip: "SuperCoder: no verified speedup yet" };
}
