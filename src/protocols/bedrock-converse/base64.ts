/** The Bedrock payloads' base64: the core's (`src/core/base64.ts`), under the name the protocol used. */
export { base64ToBytes, bytesToBase64 } from "../../core/base64.ts";
