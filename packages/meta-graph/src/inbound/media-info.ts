/** Media kinds Meta attaches. */
export type MetaMediaKind = 'image' | 'video' | 'audio' | 'file';

const BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', heic: 'image/heic',
  mp4: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm', ogg: 'audio/ogg', m4a: 'audio/mp4', aac: 'audio/aac',
  mp3: 'audio/mpeg', wav: 'audio/wav', pdf: 'application/pdf', txt: 'text/plain', zip: 'application/zip',
  doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv',
};

/**
 * Meta's webhooks carry no MIME type. The CDN serves images transcoded to JPEG and video and voice
 * clips as MP4, so those are the fallbacks when the URL path has no known extension.
 */
const FALLBACK: Record<MetaMediaKind, string> = {
  image: 'image/jpeg', video: 'video/mp4', audio: 'audio/mp4', file: 'application/octet-stream',
};

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

/** MIME type of a Meta media URL: from the path's extension, else the kind's fallback. */
export function mimeTypeOf(url: string, kind: MetaMediaKind): string {
  const extension = /\.([a-z0-9]{2,5})$/i.exec(pathOf(url))?.[1]?.toLowerCase();
  return (extension && BY_EXTENSION[extension]) || FALLBACK[kind];
}

/** File name of a Messenger file URL (its last path segment), or `file` when it has none. */
export function fileNameOf(url: string): string {
  const segment = pathOf(url).split('/').pop() ?? '';
  try {
    return decodeURIComponent(segment) || 'file';
  } catch {
    return segment || 'file';
  }
}
