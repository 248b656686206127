import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateTaxId } from './tax-ids.ts';

describe('validateTaxId', () => {
  const valid: [country: string, written: string, stored: string, format: string][] = [
    ['FR', 'FR61954506077', 'FR61954506077', 'eu_vat'],
    ['FR', 'fr 61 954 506 077', 'FR61954506077', 'eu_vat'],
    ['FR', '61954506077', 'FR61954506077', 'eu_vat'],
    ['DE', 'DE136695976', 'DE136695976', 'eu_vat'],
    ['GR', 'EL094259216', 'EL094259216', 'eu_vat'],
    ['NL', 'NL004495445B01', 'NL004495445B01', 'eu_vat'],
    ['AT', 'ATU13585627', 'ATU13585627', 'eu_vat'],
    ['IE', 'IE6388047V', 'IE6388047V', 'eu_vat'],
    ['ES', 'ESA12345674', 'ESA12345674', 'eu_vat'],
    ['SE', 'SE556188840401', 'SE556188840401', 'eu_vat'],
    ['GB', 'GB 980 7806 84', 'GB980780684', 'gb_vat'],
    ['GB', 'GBGD001', 'GBGD001', 'gb_vat'],
    ['US', '12-3456789', '123456789', 'us_ein'],
    ['CA', '123456782', '123456782', 'ca_bn'],
    ['CA', '123456782RT0001', '123456782RT0001', 'ca_gst_hst'],
    ['AU', '83 914 571 673', '83914571673', 'au_abn'],
    ['CH', 'CHE-107.787.577 IVA', 'CHE107787577IVA', 'ch_vat'],
    ['CH', 'CHE-107.787.577', 'CHE107787577', 'ch_uid'],
    ['NO', 'NO 995 525 828 MVA', '995525828MVA', 'no_vat'],
    ['NO', '995525828', '995525828MVA', 'no_vat'],
    ['JP', 'T1234567890123', 'T1234567890123', 'jp_trn'],
    ['IN', '27AAPFU0939F1ZV', '27AAPFU0939F1ZV', 'in_gst'],
    ['ZA', '4123456789', '4123456789', 'za_vat'],
  ];
  for (const [country, written, stored, format] of valid) {
    it(`reads ${written} in ${country} as ${format} ${stored}`, () => {
      assert.deepEqual(validateTaxId(written, country), [stored, format]);
    });
  }

  const invalid: [country: string, written: string, why: string][] = [
    ['FR', 'FR6195450607', 'one digit short'],
    ['DE', 'FR61954506077', 'a French number for a German address'],
    ['GR', 'GR094259216', 'Greece writes EL, not GR'],
    ['NL', 'NL004495445A01', 'no B before the branch number'],
    ['US', '12-345678', 'eight digits'],
    ['CA', '123456789', 'fails the Luhn check'],
    ['AU', '83 914 571 674', 'fails the modulo 89 check'],
    ['CH', 'CHE-107.787.578 MWST', 'wrong check digit'],
    ['NO', '995525829MVA', 'wrong check digit'],
    ['GB', 'GB98078068', 'eight digits'],
    ['BT', '123456789', 'a country without supported tax ids'],
    ['FR', '', 'empty'],
  ];
  for (const [country, written, why] of invalid) {
    it(`refuses ${written || '""'} in ${country}: ${why}`, () => {
      assert.equal(validateTaxId(written, country), null);
    });
  }
});
