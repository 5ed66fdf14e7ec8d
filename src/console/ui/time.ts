// One way to write a time on every screen: the browser's local time on a 24-hour clock, the date
// as YYYY-MM-DD. The audit charts said 14:05 while the table beside them said 2:05:33 PM
// (toLocaleString); a chart's label and a table's row must read alike.

const two = (n: number) => String(n).padStart(2, '0');

/** "14:05": a chart's axis and marks. */
export function clockTime(iso: string): string {
  const d = new Date(iso);
  return `${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** "2026-11-26 14:05:33": a table's row, the same clock with the date and seconds. */
export function dateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${clockTime(iso)}:${two(d.getSeconds())}`;
}
