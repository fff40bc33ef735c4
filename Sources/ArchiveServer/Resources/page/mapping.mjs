// The readable JSON's vocabulary as the page knows it: every `$` key of the codec's mapping that
// the page reads or writes, and the rules that tell a marker from a member.
//
// Contract: this is the only module that spells a `$` key. Every other module names them through
// `KEY` and the lists and predicates below (a unit test checks the other modules for `$` names),
// so the page can be checked against the codec's vocabulary from this one file.
//
// Pure: no DOM, no globals; node imports it as the browser does.

/// The marker keys, by what they mean.
export const KEY = Object.freeze({
  // An object of the graph: its class, its number, and a reference to a numbered object.
  class: '$class',
  id: '$id',
  ref: '$ref',
  // Collection objects: their items, in order.
  array: '$array',
  set: '$set',
  orderedSet: '$orderedSet',
  // Text a person may edit: a string object's string, an attributed string's text, a data
  // value's text.
  string: '$string',
  text: '$text',
  bytesText: '$bytesText',
  // Scalars JavaScript would change, written as text (`exactNumbers=1`).
  real: '$real',
  integer: '$integer',
  // Wrapped scalars.
  date: '$date',
  uuid: '$uuid',
  data: '$data',
  bytes: '$bytes',
  // What a data value's bytes are by their signature, beside them: `{"name": "png", "width": 24,
  // "height": 16}` (the page's data-kind.mjs reads it).
  kind: '$kind',
  // The byte order mark a data value's text stands behind, beside `$text`: `"utf8"`.
  bom: '$bom',
  // An attributed string: its runs, and a run's length and the run whose attributes it shares.
  runs: '$runs',
  length: '$length',
  attributesOf: '$attributesOf',
  // A colour's sRGB value, `#rrggbb`.
  hex: '$hex',
  // Where the objects nested deeper than `maxDepth` are written.
  table: '$table',
  // An archive decoded in place inside a data value (`nested=1`).
  keyedArchive: '$keyedArchive',
  typedstream: '$typedstream',
  propertyList: '$propertyList',
  // The rest of the codec's vocabulary, which the page shows as members as they are: the
  // envelope, class chains and hints, explicit collections and value objects, inline values,
  // data accounts and readable bytes, a nested property list's format, a typedstream's header
  // and its objects' members. Listed so that the page knows every key the codec defines (a test
  // of the service checks this object against the codec's MappingKeys).
  archiver: '$archiver',
  version: '$version',
  top: '$top',
  classes: '$classes',
  classHints: '$classhints',
  dict: '$dict',
  number: '$number',
  plist: '$plist',
  plistDate: '$plistDate',
  // A decimal number's text and compact flag; a calendar date's format and zone; a time zone's
  // name, TZif data and what the data says.
  decimal: '$decimal',
  compact: '$compact',
  dateFormat: '$dateFormat',
  zone: '$zone',
  timeZone: '$timeZone',
  tzif: '$tzif',
  zoneInfo: '$zoneInfo',
  attributes: '$attributes',
  inline: '$inline',
  uid: '$uid',
  bookmark: '$bookmark',
  alias: '$alias',
  components: '$components',
  nulTerminated: '$nulTerminated',
  ranges: '$ranges',
  indexes: '$indexes',
  format: '$format',
  byteOrder: '$byteOrder',
  systemVersion: '$systemVersion',
  groups: '$groups',
  type: '$type',
  value: '$value',
  base: '$base',
  relative: '$relative',
  space: '$space',
  named: '$named',
  name: '$name',
  size: '$size',
  flags: '$flags',
  // What a salvaged decode could not read (docs/mapping.md, "Salvage").
  broken: '$broken',
});

/// What starts a marker key; a member whose own name starts with it is written with it doubled.
const MARKER = '$';
const ESCAPED = MARKER + MARKER;

/// Collection objects' item lists: shown as the object's own children, paths kept exact.
export const COLLECTION_KEYS = Object.freeze([KEY.array, KEY.set, KEY.orderedSet]);
/// Wrappers whose one member is text a person may edit.
export const TEXT_WRAPPER_KEYS = Object.freeze([KEY.string, KEY.text, KEY.bytesText]);
/// A payload decoded in place: its `$id`s are numbered apart from the document around it.
export const PAYLOAD_KEYS = Object.freeze([KEY.keyedArchive, KEY.typedstream, KEY.propertyList]);
/// Wrappers of bytes as base64.
export const BASE64_KEYS = Object.freeze([KEY.data, KEY.bytes]);
/// Members an object's row stands for itself rather than listing them as children.
export const OBJECT_HEADER_KEYS = Object.freeze([KEY.class, KEY.id]);

/// Whether `key` starts with the marker character at all: a marker, or an escaped member.
export const startsLikeMarker = (key) => key.startsWith(MARKER);
/// Whether `key` is an escaped member (`$$name` for a member named `$name`).
export const isEscapedKey = (key) => key.startsWith(ESCAPED);
/// Whether `key` is one of the format's markers rather than a member of the archive's data.
export const isMarkerKey = (key) => key.startsWith(MARKER) && !key.startsWith(ESCAPED);
/// The member's name as the archive has it: an escaped key without its escape.
export const memberName = (key) => (isEscapedKey(key) ? key.slice(1) : key);
/// Whether a member at `slot` holds one of the format's values (`$class`, `$id`, a wrapper's own
/// key) rather than data; a string object's `$string` is the string itself, so it is not one.
export const isFormatSlot = (slot) => typeof slot === 'string' && isMarkerKey(slot) && slot !== KEY.string;

/// A JSON object (not an array, not null).
export const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
/// Whether `v` is a reference `{"$ref": n}` (or any object with a `$ref`, which the page treats so).
export const isReference = (v) => isObject(v) && KEY.ref in v;
/// The object's class name, or undefined.
export const classOf = (v) => (isObject(v) && typeof v[KEY.class] === 'string' ? v[KEY.class] : undefined);
/// The object's `$id`, or undefined.
export const idOf = (v) => (isObject(v) && typeof v[KEY.id] === 'number' ? v[KEY.id] : undefined);
/// Whether `v` is a collection object (it has one of `COLLECTION_KEYS`).
export const isCollectionObject = (v) => isObject(v) && COLLECTION_KEYS.some((k) => k in v);
/// Whether a document is a decoded typedstream (its root has `$typedstream`).
export const isTypedStreamDocument = (doc) => isObject(doc) && KEY.typedstream in doc;

/// Where a place's path names an object by its number: `$id 47 .home.name`.
export const PLACE_ID_PREFIX = KEY.id + ' ';
