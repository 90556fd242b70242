// Fidelity check of clerk-dev against Clerk's official Backend SDK (`@clerk/backend`,
// pinned in the root package.json): every Backend API endpoint clerk-dev implements is
// driven through the SDK's own method for it, and the SDK's parsed objects (User,
// EmailAddress, Session, Token, Organization, OrganizationMembership, DeletedObject,
// paginated lists, ClerkAPIResponseError) are checked field by field.
//
// Usage: CLERK_DEV_URL=http://127.0.0.1:PORT CLERK_DEV_SECRET=sk_... node e2e/sdk/clerk-backend.mjs
// (e2e/tests/clerk_dev/sdk.rs starts clerk-dev and runs it). Steps run in order, each
// building on the last; the first mismatch prints what differed and exits 1. The last
// line on success is `clerk-backend: all N steps passed`.
//
// Where the SDK has no method: minting a token with `azp` or `issued_offset_seconds`
// (clerk-dev's test extensions; the SDK's getToken only sends `expires_in_seconds`) and
// the `/dev/*` endpoints (not part of Clerk's Backend API) go through plain `fetch`.

import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 9)) {
  console.error(`clerk-backend: @clerk/backend needs Node.js >= 20.9; this is ${process.versions.node}`);
  process.exit(1);
}

function env(name) {
  const value = process.env[name];
  if (!value) {
    console.error(`clerk-backend: ${name} is required`);
    process.exit(1);
  }
  return value;
}

const apiUrl = env('CLERK_DEV_URL');
const secretKey = env('CLERK_DEV_SECRET');
process.env.CLERK_TELEMETRY_DISABLED = '1';

const { createClerkClient, verifyToken } = await import('@clerk/backend');
const { isClerkAPIResponseError } = await import('@clerk/backend/errors');

const clerk = createClerkClient({ secretKey, apiUrl, telemetry: { disabled: true } });

let passed = 0;
async function step(name, body) {
  try {
    const result = await body();
    passed += 1;
    console.log(`ok ${passed} - ${name}`);
    return result;
  } catch (error) {
    console.log(`not ok ${passed + 1} - ${name}`);
    console.log(String(error?.stack ?? error).replace(/^/gm, '    '));
    process.exit(1);
  }
}

/** Expects `promise` to reject with a ClerkAPIResponseError of this status and code. */
async function rejectsWith(promise, status, code) {
  await assert.rejects(promise, (error) => {
    assert.ok(isClerkAPIResponseError(error), `not a ClerkAPIResponseError: ${error}`);
    assert.equal(error.status, status);
    assert.equal(error.errors[0]?.code, code);
    assert.equal(typeof error.errors[0].longMessage, 'string');
    assert.ok(error.clerkTraceId, 'clerk_trace_id is read from the body');
    return true;
  });
}

/** Expects verifyToken to reject for `reason` (a TokenVerificationErrorReason). */
async function rejectsToken(promise, reason) {
  await assert.rejects(promise, (error) => {
    assert.equal(error?.reason, reason, `rejected for ${error?.reason}: ${error?.message}`);
    return true;
  });
}

async function dev(path, body) {
  const response = await fetch(`${apiUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}` },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200, `${path}: ${await response.clone().text()}`);
  return response.json();
}

const jwks = await step('jwks.getJwks answers the RS256 signing key', async () => {
  const result = await clerk.jwks.getJwks();
  assert.equal(result.keys.length, 1);
  const [key] = result.keys;
  assert.deepEqual([key.kty, key.alg, key.use, key.e], ['RSA', 'RS256', 'sig', 'AQAB']);
  assert.ok(key.kid.length > 0);
  return result;
});

const owner = await step('users.createUser makes a user with a verified primary email and metadata', async () => {
  const user = await clerk.users.createUser({
    emailAddress: ['owner@example.com'],
    skipPasswordRequirement: true,
    publicMetadata: { plan: 'beta' },
  });
  assert.match(user.id, /^user_/);
  assert.equal(user.emailAddresses.length, 1);
  const [email] = user.emailAddresses;
  assert.match(email.id, /^idn_/);
  assert.equal(email.emailAddress, 'owner@example.com');
  assert.equal(email.verification.status, 'verified');
  assert.deepEqual(email.linkedTo, []);
  assert.equal(user.primaryEmailAddressId, email.id);
  assert.equal(user.primaryEmailAddress.emailAddress, 'owner@example.com');
  assert.deepEqual(user.publicMetadata, { plan: 'beta' });
  assert.deepEqual(user.privateMetadata, {});
  assert.deepEqual(user.unsafeMetadata, {});
  assert.ok(user.createdAt > 1.6e12 && user.updatedAt >= user.createdAt, 'timestamps in ms');
  assert.deepEqual([user.banned, user.locked, user.passwordEnabled, user.twoFactorEnabled], [false, false, false, false]);
  assert.deepEqual([user.phoneNumbers, user.web3Wallets, user.externalAccounts], [[], [], []]);
  assert.equal(user.raw.object, 'user');
  return user;
});

await step('users.getUser answers the same user', async () => {
  const fetched = await clerk.users.getUser(owner.id);
  assert.deepEqual(fetched.raw, owner.raw);
});

await step('emailAddresses: create unverified, verify, make primary, delete', async () => {
  const created = await clerk.emailAddresses.createEmailAddress({
    userId: owner.id,
    emailAddress: 'second@example.com',
    verified: false,
    primary: false,
  });
  assert.match(created.id, /^idn_/);
  assert.equal(created.emailAddress, 'second@example.com');
  assert.equal(created.verification.status, 'unverified');

  const verified = await clerk.emailAddresses.updateEmailAddress(created.id, { verified: true });
  assert.equal(verified.verification.status, 'verified');
  await clerk.emailAddresses.updateEmailAddress(created.id, { primary: true });
  let user = await clerk.users.getUser(owner.id);
  assert.equal(user.primaryEmailAddressId, created.id);
  assert.deepEqual(user.emailAddresses.map((e) => e.verification.status), ['verified', 'verified']);

  const deleted = await clerk.emailAddresses.deleteEmailAddress(created.id);
  assert.deepEqual({ ...deleted }, { object: 'email_address', id: created.id, slug: null, deleted: true });
  user = await clerk.users.getUser(owner.id);
  assert.deepEqual(user.emailAddresses.map((e) => e.emailAddress), ['owner@example.com']);
  assert.equal(user.primaryEmailAddressId, user.emailAddresses[0].id);
});

await step('users.updateUserMetadata deep-merges and null deletes', async () => {
  let user = await clerk.users.updateUserMetadata(owner.id, {
    publicMetadata: { vestibule: { programs: ['alpha'] }, plan: null },
    privateMetadata: { note: 'x', nested: { a: 1, b: 2 } },
  });
  assert.deepEqual(user.publicMetadata, { vestibule: { programs: ['alpha'] } });
  assert.deepEqual(user.privateMetadata, { note: 'x', nested: { a: 1, b: 2 } });
  user = await clerk.users.updateUserMetadata(owner.id, {
    publicMetadata: { vestibule: { cohort: 'c1' } },
    privateMetadata: { nested: { a: null } },
    unsafeMetadata: { theme: 'dark' },
  });
  assert.deepEqual(user.publicMetadata, { vestibule: { programs: ['alpha'], cohort: 'c1' } });
  assert.deepEqual(user.privateMetadata, { note: 'x', nested: { b: 2 } });
  assert.deepEqual(user.unsafeMetadata, { theme: 'dark' });
  const fetched = await clerk.users.getUser(owner.id);
  assert.deepEqual(
    [fetched.publicMetadata, fetched.privateMetadata, fetched.unsafeMetadata],
    [user.publicMetadata, user.privateMetadata, user.unsafeMetadata],
  );
});

const session = await step('sessions.createSession opens an active session', async () => {
  const created = await clerk.sessions.createSession({ userId: owner.id });
  assert.match(created.id, /^sess_/);
  assert.deepEqual([created.userId, created.status], [owner.id, 'active']);
  assert.match(created.clientId, /^client_/);
  assert.ok(created.expireAt > created.createdAt);
  return created;
});

const pem = createPublicKey({ key: jwks.keys[0], format: 'jwk' }).export({ type: 'spki', format: 'pem' });

await step('sessions.getToken mints tokens that verifyToken accepts through the JWKS and networkless', async () => {
  const token = await clerk.sessions.getToken(session.id);
  assert.equal(typeof token.jwt, 'string');
  const viaJwks = await verifyToken(token.jwt, { secretKey, apiUrl, skipJwksCache: true });
  assert.deepEqual([viaJwks.sub, viaJwks.sid], [owner.id, session.id]);
  const networkless = await verifyToken(token.jwt, { jwtKey: pem });
  assert.deepEqual(networkless, viaJwks);

  const longer = await clerk.sessions.getToken(session.id, undefined, 120);
  const claims = await verifyToken(longer.jwt, { jwtKey: pem });
  assert.equal(claims.exp - claims.iat, 120);
});

await step('verifyToken checks azp, expiry and the signature of clerk-dev tokens', async () => {
  const path = `/v1/sessions/${session.id}/tokens`;
  const { jwt: withAzp } = await dev(path, { azp: 'http://app.test' });
  const claims = await verifyToken(withAzp, { jwtKey: pem, authorizedParties: ['http://app.test'] });
  assert.equal(claims.azp, 'http://app.test');
  await rejectsToken(
    verifyToken(withAzp, { jwtKey: pem, authorizedParties: ['http://other.test'] }),
    'token-invalid-authorized-parties',
  );
  const { jwt: expired } = await dev(path, { issued_offset_seconds: -3600 });
  await rejectsToken(verifyToken(expired, { jwtKey: pem }), 'token-expired');
  const [header, payload, signature] = withAzp.split('.');
  const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'user_forged' })).toString('base64url');
  await rejectsToken(verifyToken([header, forged, signature].join('.'), { jwtKey: pem }), 'token-invalid-signature');
  assert.ok(payload.length > 0);
});

await step('sessions.revokeSession revokes, and the session mints no more tokens', async () => {
  const revoked = await clerk.sessions.revokeSession(session.id);
  assert.deepEqual([revoked.id, revoked.status], [session.id, 'revoked']);
  await rejectsWith(clerk.sessions.getToken(session.id), 404, 'resource_not_found');
});

const member = await step('a second user to be a member', () =>
  clerk.users.createUser({ emailAddress: ['member@example.com'], skipPasswordRequirement: true }),
);

const org = await step('organizations.createOrganization makes the creator an org:admin member', async () => {
  const created = await clerk.organizations.createOrganization({
    name: 'Acme Beta',
    slug: 'acme-beta',
    createdBy: owner.id,
    publicMetadata: { tier: 'gold' },
  });
  assert.match(created.id, /^org_/);
  assert.deepEqual([created.name, created.slug, created.createdBy], ['Acme Beta', 'acme-beta', owner.id]);
  assert.deepEqual([created.publicMetadata, created.privateMetadata], [{ tier: 'gold' }, {}]);
  assert.equal(created.adminDeleteEnabled, true);
  assert.ok(created.createdAt > 1.6e12);

  const bySlug = await clerk.organizations.getOrganization({ slug: 'acme-beta', includeMembersCount: true });
  assert.deepEqual([bySlug.id, bySlug.membersCount], [created.id, 1]);
  const byId = await clerk.organizations.getOrganization({ organizationId: created.id });
  assert.equal(byId.membersCount, undefined, 'members_count only when asked for');
  const list = await clerk.organizations.getOrganizationMembershipList({ organizationId: created.id });
  assert.equal(list.totalCount, 1);
  assert.deepEqual([list.data[0].role, list.data[0].publicUserData.userId], ['org:admin', owner.id]);
  return created;
});

await step('organizations.createOrganizationMembership adds a member once', async () => {
  const membership = await clerk.organizations.createOrganizationMembership({
    organizationId: org.id,
    userId: member.id,
    role: 'org:member',
  });
  assert.match(membership.id, /^orgmem_/);
  assert.equal(membership.role, 'org:member');
  assert.ok(membership.permissions.includes('org:sys_memberships:read'));
  assert.deepEqual([membership.organization.id, membership.organization.slug], [org.id, 'acme-beta']);
  assert.deepEqual(
    [membership.publicUserData.userId, membership.publicUserData.identifier],
    [member.id, 'member@example.com'],
  );
  assert.equal(membership.raw.object, 'organization_membership');
  await rejectsWith(
    clerk.organizations.createOrganizationMembership({ organizationId: org.id, userId: member.id, role: 'org:admin' }),
    400,
    'already_a_member_in_organization',
  );
});

await step('membership lists from both sides, paginated', async () => {
  const all = await clerk.organizations.getOrganizationMembershipList({ organizationId: org.id });
  assert.equal(all.totalCount, 2);
  assert.deepEqual(all.data.map((m) => m.publicUserData.userId), [member.id, owner.id], 'newest first');
  const second = await clerk.organizations.getOrganizationMembershipList({ organizationId: org.id, limit: 1, offset: 1 });
  assert.deepEqual([second.totalCount, second.data.length, second.data[0].publicUserData.userId], [2, 1, owner.id]);
  const oldestFirst = await clerk.organizations.getOrganizationMembershipList({
    organizationId: org.id,
    orderBy: '+created_at',
  });
  assert.deepEqual(oldestFirst.data.map((m) => m.publicUserData.userId), [owner.id, member.id]);
  const mine = await clerk.users.getOrganizationMembershipList({ userId: member.id });
  assert.equal(mine.totalCount, 1);
  assert.deepEqual([mine.data[0].organization.id, mine.data[0].role], [org.id, 'org:member']);
});

await step('organizations.deleteOrganizationMembership answers the removed membership', async () => {
  const removed = await clerk.organizations.deleteOrganizationMembership({ organizationId: org.id, userId: member.id });
  assert.deepEqual([removed.role, removed.publicUserData.userId, removed.organization.id], ['org:member', member.id, org.id]);
  const mine = await clerk.users.getOrganizationMembershipList({ userId: member.id });
  assert.deepEqual([mine.totalCount, mine.data], [0, []]);
  await rejectsWith(
    clerk.organizations.deleteOrganizationMembership({ organizationId: org.id, userId: member.id }),
    404,
    'resource_not_found',
  );
});

await step('unknown organizations and users answer 404 resource_not_found', async () => {
  const nobody = 'user_doesnotexist';
  await rejectsWith(
    clerk.organizations.createOrganizationMembership({ organizationId: 'org_nope', userId: member.id, role: 'org:member' }),
    404,
    'resource_not_found',
  );
  await rejectsWith(
    clerk.organizations.createOrganizationMembership({ organizationId: org.id, userId: nobody, role: 'org:member' }),
    404,
    'resource_not_found',
  );
  await rejectsWith(clerk.organizations.getOrganizationMembershipList({ organizationId: 'org_nope' }), 404, 'resource_not_found');
  await rejectsWith(clerk.users.getOrganizationMembershipList({ userId: nobody }), 404, 'resource_not_found');
  await rejectsWith(clerk.organizations.getOrganization({ organizationId: 'org_nope' }), 404, 'resource_not_found');
  await rejectsWith(clerk.users.getUser(nobody), 404, 'resource_not_found');
  await rejectsWith(clerk.users.updateUserMetadata(nobody, { publicMetadata: { a: 1 } }), 404, 'resource_not_found');
});

await step('users.deleteUser deletes the user, its memberships and its sessions', async () => {
  const live = await clerk.sessions.createSession({ userId: owner.id });
  await clerk.sessions.getToken(live.id);
  const deleted = await clerk.users.deleteUser(owner.id);
  assert.deepEqual({ ...deleted }, { object: 'user', id: owner.id, slug: null, deleted: true });
  await rejectsWith(clerk.users.getUser(owner.id), 404, 'resource_not_found');
  await rejectsWith(clerk.sessions.getToken(live.id), 404, 'resource_not_found');
  await rejectsWith(clerk.users.deleteUser(owner.id), 404, 'resource_not_found');
  const list = await clerk.organizations.getOrganizationMembershipList({ organizationId: org.id });
  assert.deepEqual([list.totalCount, list.data], [0, []]);
});

await step('injected outages reach the SDK as 503 and clear', async () => {
  await dev('/dev/faults', { users: 'unavailable', writes: 'unavailable' });
  await rejectsWith(clerk.users.getUser(member.id), 503, 'service_unavailable');
  await rejectsWith(clerk.users.updateUserMetadata(member.id, { publicMetadata: { a: 1 } }), 503, 'service_unavailable');
  await rejectsWith(
    clerk.organizations.createOrganizationMembership({ organizationId: org.id, userId: member.id, role: 'org:member' }),
    503,
    'service_unavailable',
  );
  await dev('/dev/faults', { users: 'ok', writes: 'ok' });
  const user = await clerk.users.updateUserMetadata(member.id, { publicMetadata: { a: 1 } });
  assert.deepEqual(user.publicMetadata, { a: 1 });
});

await step('a wrong secret key answers 401 authentication_invalid', async () => {
  const stranger = createClerkClient({ secretKey: 'sk_test_wrong', apiUrl, telemetry: { disabled: true } });
  await rejectsWith(stranger.users.getUser(member.id), 401, 'authentication_invalid');
});

console.log(`clerk-backend: all ${passed} steps passed`);
