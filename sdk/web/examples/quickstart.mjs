// Quick start with the SDK (the README's): a device registers through the backend, opens
// a behavioral session, pushes the events it captured, and the backend scores them.
// Against a running `idv serve`, after `cd sdk/web && npm ci && npm run build`:
//
//   IDV_ACCESS_KEY_ID=... IDV_SECRET_KEY=... IDV_KEY_PAIR_ID=... IDV_SERVER_PUBLIC_KEY=... \
//     node sdk/web/examples/quickstart.mjs [http://127.0.0.1:8080]
//
// (`idv keys create` prints the Access Key, `idv keypairs create` the key pair.)
import { readFileSync } from "node:fs";
import { AccessKeyClient, DeviceKeys, DeviceSession, RefusedError, base64Decode } from "../dist/src/index.js";

const env = (name) => process.env[name] || (() => { throw new Error(`set ${name}`); })();
const url = process.argv[2] ?? "http://127.0.0.1:8080";
const user = `quickstart-${Date.now()}`;

// Backend: the Access Key never leaves the server.
const idv = new AccessKeyClient(url, env("IDV_ACCESS_KEY_ID"), env("IDV_SECRET_KEY"));

// Device (a browser or app): a key pair, registered through the backend.
const serverKey = base64Decode(env("IDV_SERVER_PUBLIC_KEY"));
const keys = await DeviceKeys.generate();
const registration = await keys.registerDeviceBody(env("IDV_KEY_PAIR_ID"), serverKey, user, "quickstart-device", true);
const { body: registered } = await idv.post("/v1/register_device", registration);
const deviceId = registered.data.customer_user_device_id;
console.log(`register_device: ${deviceId}`);

// A session, a challenge, and a batch of events (here a recorded one: BehaviorCapture
// records them in a page, see the README).
const session = await DeviceSession.create(deviceId, keys, serverKey);
const challenge = await session.createChallenge(url, "quickstart-session");
console.log(`create_challenge: ${challenge.challengeId}`);
const [recorded] = JSON.parse(readFileSync(new URL("../test/fixtures/capture_session.json", import.meta.url), "utf8"));
await session.pushBatch(url, challenge.challengeId, recorded);
console.log(`push_event_batch: ${recorded.events.length} events accepted`);

// Backend: score the session (the first one enrolls the user's baseline).
try {
  const { body } = await idv.post("/v1/behavior/score", { challenge_id: challenge.challengeId });
  console.log(`behavior/score: ${JSON.stringify(body.data)}`);
} catch (e) {
  if (!(e instanceof RefusedError)) throw e;
  console.log(`behavior/score: ${e.status} ${e.code}`); // e.g. too little data to score
}
