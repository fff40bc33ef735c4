/* eslint-env browser */
// Requests to the service, with their progress shown.

import { bytesText } from './format.mjs';
import { showProgress } from './messages.mjs';

/// POSTs `body` to `url` as `contentType`; resolves with the XHR once a 2xx reply is in (its
/// response as `responseType`). Upload and download progress are shown under `label`. Any other
/// reply rejects with its problem document (`status` added), or one made of the status line; a
/// request that gets no reply rejects with a problem that says so.
export function request(url, body, contentType, label, responseType) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('Content-Type', contentType);
    xhr.responseType = responseType;
    const size = body.byteLength !== undefined ? body.byteLength : body.length;
    const fraction = (e) => (e.lengthComputable ? e.loaded / e.total : undefined);
    xhr.upload.onprogress = (e) => showProgress(`${label}: sending ${bytesText(e.loaded)} of ${bytesText(size)}`, fraction(e));
    xhr.upload.onload = () => showProgress(`${label}: converting on the server…`);
    xhr.onprogress = (e) => showProgress(`${label}: receiving ${bytesText(e.loaded)}`, fraction(e));
    xhr.onerror = () => reject({ title: 'The server could not be reached', detail: `${label} failed before a reply came back.` });
    xhr.onload = async () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve(xhr);
      let problem = { title: `${xhr.status} ${xhr.statusText}` };
      try {
        const text = responseType === 'blob' ? await xhr.response.text() : xhr.response;
        problem = Object.assign({ status: xhr.status }, JSON.parse(text));
      } catch (_) {
        // not a problem document: the status line says it
      }
      return reject(problem);
    };
    xhr.send(body);
  });
}
