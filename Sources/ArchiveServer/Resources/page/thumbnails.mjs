/* eslint-env browser */
// Thumbnails of image data values in their tree rows: an `<img>` of the value's own bytes through
// a `blob:` URL (the page's Content-Security-Policy allows `img-src blob:`), made when its row
// comes near the tree's visible part, and its URL revoked when the row goes away.

import { HEADER_BYTES, dataKind, writtenKind } from './data-kind.mjs';
import { base64Slice } from './data-value.mjs';
import { base64Length } from './format.mjs';
import { ui } from './dom.mjs';

/// The largest value a thumbnail is made of: 8 MiB. A thumbnail decodes the whole value from
/// base64 (about 6 ms a MiB, measured in node) and holds the bytes while its row is there, then the
/// browser decodes the image, all for a picture 20 pixels high: a tree of many large images would
/// pay that row by row for nothing a person could see. A larger image shows no thumbnail (the data
/// panel still dumps and saves it).
export const THUMBNAIL_MAX_BYTES = 8 * 1024 * 1024;
/// The most pixels a thumbnail's image may have, when its header says (PNG, GIF, JPEG): 16
/// million, 64 MB decoded at four bytes a pixel. A small PNG can hold far more (a 5,000 × 4,000
/// PNG of one colour is 58 KB), which the browser would decode whole to show 20 pixels of it.
export const THUMBNAIL_MAX_PIXELS = 16 * 1000 * 1000;

/// Bytes read for the kind: every image signature (and BMP's length field) is in the first 16.
const SIGNATURE_BYTES = 16;

/// The `blob:` URL of each thumbnail made, by its element.
const urls = new Map();
/// The base64 text, kind and MIME type each waiting thumbnail is to be made of, by its element.
const waiting = new Map();
/// The base64 text each thumbnail shows, by its element: a row painted again with the same value
/// keeps its thumbnail (the reference index's repaint of every row decodes no image twice).
const shows = new WeakMap();
let observer = null;

/// Makes the thumbnails whose rows came into view (or near it).
function onSight(entries) {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    const img = entry.target;
    observer.unobserve(img);
    const job = waiting.get(img);
    waiting.delete(img);
    if (!job) continue;
    let bytes;
    try {
      bytes = base64Slice(job.base64);
    } catch (_) {
      img.remove();
      continue;
    }
    const kind = job.kind.width !== undefined ? job.kind : dataKind(bytes.subarray(0, HEADER_BYTES), bytes.length);
    if (kind.width !== undefined && kind.width * kind.height > THUMBNAIL_MAX_PIXELS) {
      img.remove();
      continue;
    }
    const url = URL.createObjectURL(new Blob([bytes], { type: job.type }));
    urls.set(img, url);
    img.src = url;
  }
}

/// A thumbnail for the data value `data` (from `dataOf`), or null when it is no image a browser
/// shows, larger than `THUMBNAIL_MAX_BYTES`, or not base64. Its bytes are decoded only once it
/// comes within a screen of the tree's visible part; one whose header says more pixels than
/// `THUMBNAIL_MAX_PIXELS`, or that does not load, is taken away.
/// `previous` is the row's thumbnail before it was painted again: kept when it shows the same
/// bytes, else dropped.
export function thumbnailFor(data, previous = null) {
  const base64 = data && typeof data.base64 === 'string' ? data.base64 : null;
  if (previous) {
    if (base64 !== null && shows.get(previous) === base64) return previous;
    dropThumbnail(previous);
  }
  if (base64 === null) return null;
  const length = base64Length(base64);
  if (length > THUMBNAIL_MAX_BYTES) return null;
  // The kind the service wrote beside the bytes (`$kind`), else their signature.
  let kind = writtenKind(data.kind);
  if (!kind) {
    try {
      kind = dataKind(base64Slice(base64, 0, SIGNATURE_BYTES), length);
    } catch (_) {
      return null;
    }
  }
  if (!kind.image) return null;
  if (!observer) observer = new IntersectionObserver(onSight, { root: ui.tree, rootMargin: '100% 0px' });
  const img = document.createElement('img');
  img.className = 'thumb';
  img.alt = `${kind.text} thumbnail`;
  img.decoding = 'async';
  img.addEventListener('error', () => {
    dropThumbnail(img);
    img.remove();
  });
  waiting.set(img, { base64, kind, type: `image/${kind.kind}` });
  shows.set(img, base64);
  observer.observe(img);
  return img;
}

/// Forgets a thumbnail whose row goes away: no longer waited for, its URL revoked.
function dropThumbnail(img) {
  if (observer) observer.unobserve(img);
  waiting.delete(img);
  const url = urls.get(img);
  if (url) URL.revokeObjectURL(url);
  urls.delete(img);
}

/// Forgets every thumbnail: the tree is made anew.
export function dropThumbnails() {
  if (observer) observer.disconnect();
  for (const url of urls.values()) URL.revokeObjectURL(url);
  urls.clear();
  waiting.clear();
}

/// How many thumbnails hold a URL now (page_check.py reads it through `window.archivePage`).
export const liveThumbnails = () => urls.size;
