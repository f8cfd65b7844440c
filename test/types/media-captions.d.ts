// The plugin imports media-captions too, so its declaration of the package is the one both programs read.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- an ambient module is no module to import
/// <reference path="../../plugin/lib/media-captions.d.ts" />
