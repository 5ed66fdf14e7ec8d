/**
 * The file extension for a MIME type, for the files the CLI saves (call and
 * read --output, connect's saved files). Names come from this table, never
 * from the server. Unknown types get none (the caller falls back to .bin).
 */
const EXTENSIONS: Readonly<Record<string, string>> = {
  // images
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'image/svg+xml': '.svg',
  'image/bmp': '.bmp',
  'image/avif': '.avif',
  'image/tiff': '.tif',
  'image/heic': '.heic',
  'image/x-icon': '.ico',
  'image/vnd.microsoft.icon': '.ico',
  // audio and video
  'audio/wav': '.wav',
  'audio/x-wav': '.wav',
  'audio/wave': '.wav',
  'audio/mpeg': '.mp3',
  'audio/ogg': '.ogg',
  'audio/webm': '.webm',
  'audio/flac': '.flac',
  'audio/mp4': '.m4a',
  'audio/aac': '.aac',
  'audio/opus': '.opus',
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'video/ogg': '.ogv',
  'video/quicktime': '.mov',
  // archives and compressed data
  'application/gzip': '.gz',
  'application/x-gzip': '.gz',
  'application/zip': '.zip',
  'application/x-zip-compressed': '.zip',
  'application/x-tar': '.tar',
  'application/x-bzip2': '.bz2',
  'application/x-xz': '.xz',
  'application/zstd': '.zst',
  'application/x-7z-compressed': '.7z',
  'application/vnd.rar': '.rar',
  'application/java-archive': '.jar',
  'application/epub+zip': '.epub',
  // documents
  'application/pdf': '.pdf',
  'application/rtf': '.rtf',
  'application/msword': '.doc',
  'application/vnd.ms-excel': '.xls',
  'application/vnd.ms-powerpoint': '.ppt',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': '.docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': '.xlsx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': '.pptx',
  'application/vnd.oasis.opendocument.text': '.odt',
  'application/vnd.oasis.opendocument.spreadsheet': '.ods',
  // text and data
  'text/plain': '.txt',
  'text/csv': '.csv',
  'text/tab-separated-values': '.tsv',
  'text/html': '.html',
  'text/markdown': '.md',
  'text/css': '.css',
  'text/xml': '.xml',
  'application/xml': '.xml',
  'application/json': '.json',
  'application/x-ndjson': '.ndjson',
  'application/jsonl': '.jsonl',
  'application/yaml': '.yaml',
  'application/x-yaml': '.yaml',
  'text/yaml': '.yaml',
  'application/toml': '.toml',
  'text/javascript': '.js',
  'application/javascript': '.js',
  'application/typescript': '.ts',
  'text/x-python': '.py',
  'application/x-sh': '.sh',
  'application/sql': '.sql',
  'text/calendar': '.ics',
  'application/wasm': '.wasm',
  'application/octet-stream': '.bin',
  // fonts
  'font/woff': '.woff',
  'font/woff2': '.woff2',
  'font/ttf': '.ttf',
  'font/otf': '.otf',
};

export function extensionFor(mimeType: string | undefined): string | undefined {
  const type = (mimeType ?? '').split(';')[0].trim().toLowerCase();
  const known = EXTENSIONS[type];
  if (known) return known;
  // Structured syntax suffixes (RFC 6839): application/vnd.api+json is JSON, image/foo+xml is XML.
  if (type.endsWith('+json')) return '.json';
  if (type.endsWith('+xml')) return '.xml';
  if (type.endsWith('+zip')) return '.zip';
  return undefined;
}
