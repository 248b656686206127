import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  discordGuildIdOf,
  issueDiscordGuildToken,
  visibleGrantProperties,
} from './benefit-properties.ts';

const secret = 'a-test-secret-of-at-least-thirty-two-characters';
const organization = '6f1b2c3d-0000-4000-8000-000000000001';

describe('Discord guild tokens', () => {
  it('name the guild they were issued for, to the organization they were issued to', () => {
    const token = issueDiscordGuildToken(secret, organization, '1234567890');
    assert.match(token, /^1234567890\.[\w-]+$/);
    assert.equal(discordGuildIdOf(secret, organization, token), '1234567890');
  });

  const forged: [string, string][] = [
    [
      'another guild with a copied signature',
      `999.${issueDiscordGuildToken(secret, organization, '1').split('.')[1]}`,
    ],
    [
      'a token issued with another secret',
      issueDiscordGuildToken('another secret', organization, '1234567890'),
    ],
    [
      'a token issued to another organization',
      issueDiscordGuildToken(secret, '6f1b2c3d-0000-4000-8000-000000000002', '1234567890'),
    ],
    [
      'a truncated signature',
      issueDiscordGuildToken(secret, organization, '1234567890').slice(0, -2),
    ],
    ['no signature', '1234567890'],
    ['an empty guild', `.${issueDiscordGuildToken(secret, organization, '').split('.')[1]}`],
    ['an empty string', ''],
  ];
  for (const [name, token] of forged) {
    it(`refuse ${name}`, () => {
      assert.equal(discordGuildIdOf(secret, organization, token), null);
    });
  }
});

describe('visibleGrantProperties', () => {
  const cases: [string, string, Record<string, unknown>, Record<string, unknown>][] = [
    ['custom grants show nothing', 'custom', { note: 'x' }, {}],
    [
      'discord keeps a null account and drops bookkeeping',
      'discord',
      { account_id: null, guild_id: 'g', role_id: 'r', attempts: 3 },
      { account_id: null, guild_id: 'g', role_id: 'r' },
    ],
    [
      'github drops null values of keys that are never null',
      'github_repository',
      { account_id: 'a', repository_owner: 'o', repository_name: null, permission: 'pull' },
      { account_id: 'a', repository_owner: 'o', permission: 'pull' },
    ],
    ['downloadables show their files', 'downloadables', { files: ['f'] }, { files: ['f'] }],
    [
      'license keys show the key id and display key',
      'license_keys',
      { license_key_id: 'k', display_key: '****-ABCDEF', key: 'secret' },
      { license_key_id: 'k', display_key: '****-ABCDEF' },
    ],
    [
      'meter credits show the last credit',
      'meter_credit',
      { last_credited_meter_id: 'm', last_credited_units: 10 },
      { last_credited_meter_id: 'm', last_credited_units: 10 },
    ],
    ['an unknown type shows nothing', 'carrier_pigeon', { files: ['f'] }, {}],
  ];
  for (const [name, type, stored, visible] of cases) {
    it(name, () => {
      assert.deepEqual(visibleGrantProperties(type, stored), visible);
    });
  }
});
