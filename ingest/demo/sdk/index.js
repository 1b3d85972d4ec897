/**
 * @idv/web-sdk: the device side of the idv behavioral API protocol
 * (docs/BEHAVIOR_PROTOCOL.md) on WebCrypto, and a backend client of the Access Key
 * operations (`AccessKeyClient`, server side only), and selfie / gesture / flash capture
 * helpers that build face_auth request fields.
 */
export * from "./md5.js";
export * from "./encoding.js";
export * from "./protocol.js";
export * from "./chain.js";
export * from "./session.js";
export * from "./capture.js";
export * from "./selfie.js";
export * from "./backend.js";
