// The raw baseline paging tools/list as toolwright does (100 tools a page, a cursor per page):
// what "full listing of 1,000 tools >= 0.8x a raw pager" compares against (issue #14).
process.env.BENCH_RAW_PAGE_SIZE = '100';
await import('./raw.mjs');
