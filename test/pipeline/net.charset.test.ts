import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { charsetFromContentType, charsetFromMarkup, decodeBody, detectCharset, normalizeCharset } from '../../pipeline/runtime/net/charset.js';

describe('pipeline/runtime/net/charset', () => {
  it('reads the charset parameter of a Content-Type', () => {
    expect(charsetFromContentType('text/html; charset=windows-1251')).toBe('windows-1251');
    expect(charsetFromContentType('text/html;charset="UTF-8"')).toBe('UTF-8');
    expect(charsetFromContentType('text/html')).toBeNull();
  });

  it('maps labels the WHATWG way and drops unknown ones', () => {
    expect(normalizeCharset('ISO-8859-1')).toBe('windows-1252');
    expect(normalizeCharset('x-sjis')).toBe('shift_jis');
    expect(normalizeCharset('no-such-charset')).toBeNull();
  });

  it('finds meta charset, http-equiv and the XML declaration in the first 1024 bytes only', () => {
    expect(charsetFromMarkup(Buffer.from('<html><head><meta charset="shift_jis">'))).toBe('shift_jis');
    expect(charsetFromMarkup(Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">'))).toBe('koi8-r');
    expect(charsetFromMarkup(Buffer.from('<?xml version="1.0" encoding="windows-1250"?><rss/>'))).toBe('windows-1250');
    expect(charsetFromMarkup(Buffer.from(`${' '.repeat(5000)}<meta charset="koi8-r">`))).toBeNull();
  });

  it('orders BOM, header, meta, default', () => {
    const cyr = iconv.encode('<meta charset="koi8-r">Привет', 'windows-1251');
    expect(detectCharset(cyr, 'text/html; charset=windows-1251')).toMatchObject({ charset: 'windows-1251', source: 'header' });
    expect(detectCharset(cyr, 'text/html')).toMatchObject({ charset: 'koi8-r', source: 'meta' });
    expect(detectCharset(Buffer.from('plain'), null)).toMatchObject({ charset: 'utf-8', source: 'default' });
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Привет')]);
    // A BOM is never wrong about the bytes after it: it wins over a contradicting header.
    expect(decodeBody(bom, 'text/html; charset=iso-8859-1')).toEqual({ text: 'Привет', charset: 'utf-8', source: 'bom' });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode('héllo', 'utf-16le')]);
    expect(decodeBody(utf16).text).toBe('héllo');
  });

  it('falls back to the next source when a declared charset is unknown', () => {
    const text = decodeBody(Buffer.from('<meta charset="utf-8">naïve'), 'text/html; charset=bogus');
    expect(text).toMatchObject({ text: '<meta charset="utf-8">naïve', source: 'meta' });
  });

  describe('prescan (HTML standard)', () => {
    it('ignores a <meta charset> inside a comment and obeys a real one after it', () => {
      const commented = '<!-- <meta charset="windows-1251"> -->';
      expect(detectCharset(Buffer.from(`${commented}<p>x`), 'text/html')).toMatchObject({ charset: 'utf-8', source: 'default' });
      expect(charsetFromMarkup(Buffer.from(commented))).toBeNull();
      const body = Buffer.concat([Buffer.from(`<html><head>${commented}<meta charset="koi8-r">`), Buffer.from([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4])]);
      expect(decodeBody(body, 'text/html')).toMatchObject({ text: `<html><head>${commented}<meta charset="koi8-r">Привет`, charset: 'koi8-r', source: 'meta' });
    });

    it('reads <meta http-equiv="Content-Type" content="text/html; charset=…">, in either attribute order', () => {
      const cyrillic = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // Привет in windows-1251
      const equivFirst = Buffer.concat([Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">'), cyrillic]);
      expect(decodeBody(equivFirst, 'text/html')).toMatchObject({ charset: 'windows-1251', source: 'meta' });
      expect(decodeBody(equivFirst, 'text/html').text.endsWith('>Привет')).toBe(true);
      const contentFirst = Buffer.from("<META CONTENT='text/html; charset=windows-1251' HTTP-EQUIV=content-type>");
      expect(detectCharset(contentFirst)).toMatchObject({ charset: 'windows-1251', source: 'meta' });
      // Without http-equiv="Content-Type" a content attribute declares nothing.
      expect(charsetFromMarkup(Buffer.from('<meta name="x" content="text/html; charset=windows-1251">'))).toBeNull();
    });

    it('obeys a meta within the first 1024 bytes and not one past them', () => {
      const meta = '<meta charset="windows-1251">';
      expect(detectCharset(Buffer.from(`${' '.repeat(1024 - meta.length)}${meta}`))).toMatchObject({ charset: 'windows-1251', source: 'meta' });
      expect(detectCharset(Buffer.from(`${' '.repeat(1010)}${meta}`))).toMatchObject({ charset: 'utf-8', source: 'default' });
      expect(detectCharset(Buffer.from(`${'x'.repeat(1100)}${meta}`))).toMatchObject({ charset: 'utf-8', source: 'default' });
    });

    it('takes the first meta whose label is known', () => {
      expect(charsetFromMarkup(Buffer.from('<meta charset="no-such-charset"><meta charset="koi8-u"><meta charset="big5">'))).toBe('koi8-u');
    });

    it('reads a UTF-16 meta in an ASCII document as UTF-8, and x-user-defined as windows-1252', () => {
      expect(decodeBody(Buffer.from('<meta charset="utf-16">naïve'), 'text/html')).toEqual({ text: '<meta charset="utf-16">naïve', charset: 'utf-8', source: 'meta' });
      expect(detectCharset(Buffer.from('<meta charset="UTF-16BE">'))).toMatchObject({ charset: 'utf-8', source: 'meta' });
      expect(detectCharset(Buffer.from('<meta charset="x-user-defined">'))).toMatchObject({ charset: 'windows-1252', source: 'meta' });
    });

    it('sees past a first byte 0xEF that begins no BOM', () => {
      const body = Buffer.concat([Buffer.from([0xef]), Buffer.from('<meta charset="windows-1251">')]);
      expect(detectCharset(body)).toMatchObject({ charset: 'windows-1251', source: 'meta', bomLength: 0 });
      // ... and a U+FEFF later in the window is not a BOM.
      const later = Buffer.concat([Buffer.from([0xef, 0x20]), Buffer.from('text \ufeff')]);
      expect(detectCharset(later, 'text/plain')).toMatchObject({ charset: 'utf-8', source: 'default' });
    });
  });

  describe('order: BOM, header, prescan, default', () => {
    const markup = '<meta charset="windows-1251">Привет';
    it.each([
      ['utf-8', [0xef, 0xbb, 0xbf], Buffer.from(markup, 'utf8')],
      ['utf-16le', [0xff, 0xfe], Buffer.from(markup, 'utf16le')],
      ['utf-16be', [0xfe, 0xff], Buffer.from(markup, 'utf16le').swap16()],
    ] as const)('a %s BOM wins over the header and the meta', (charset, bom, encoded) => {
      const body = Buffer.concat([Buffer.from(bom), encoded]);
      expect(detectCharset(body, 'text/html; charset=koi8-r')).toEqual({ charset, source: 'bom', bomLength: bom.length });
      expect(decodeBody(body, 'text/html; charset=koi8-r')).toEqual({ text: markup, charset, source: 'bom' });
    });

    it('the header wins over the meta', () => {
      const body = Buffer.concat([Buffer.from('<meta charset="koi8-r">'), Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2])]);
      expect(decodeBody(body, 'text/html; charset="Windows-1251"')).toEqual({ text: '<meta charset="koi8-r">Привет', charset: 'windows-1251', source: 'header' });
    });

    it('a header UTF-16 is obeyed (only the markup cannot claim it)', () => {
      expect(decodeBody(Buffer.from('<p>hi</p>', 'utf16le'), 'text/html; charset=utf-16')).toEqual({ text: '<p>hi</p>', charset: 'utf-16le', source: 'header' });
    });

    it('an unknown label falls through: header to meta, meta to the default', () => {
      const body = Buffer.concat([Buffer.from('<meta charset="tis-620">'), Buffer.from([0xa1])]);
      // utf-7 is one iconv-lite knows but the Encoding standard does not.
      expect(decodeBody(body, 'text/html; charset=utf-7')).toEqual({ text: '<meta charset="tis-620">ก', charset: 'windows-874', source: 'meta' });
      expect(detectCharset(Buffer.from('<meta charset="x-klingon">'), 'text/html; charset=bogus')).toMatchObject({ charset: 'utf-8', source: 'default' });
    });

    it('defaults to UTF-8, not windows-1252', () => {
      expect(decodeBody(Buffer.from('naïve café'), 'text/plain')).toEqual({ text: 'naïve café', charset: 'utf-8', source: 'default' });
    });
  });

  describe('labels (WHATWG Encoding table)', () => {
    it.each([
      ['iso-8859-9', 'windows-1254'],
      ['tis-620', 'windows-874'],
      ['latin1', 'windows-1252'],
      ['iso-8859-1', 'windows-1252'],
      ['ascii', 'windows-1252'],
      ['us-ascii', 'windows-1252'],
      ['gb2312', 'gbk'],
      ['x-sjis', 'shift_jis'],
      ['cp1251', 'windows-1251'],
      ['ks_c_5601-1987', 'euc-kr'],
      ['UTF8', 'utf-8'],
    ])('%s means %s, in the header and in a meta', (label, name) => {
      expect(normalizeCharset(label)).toBe(name);
      expect(detectCharset(Buffer.from('<p>x'), `text/html; charset=${label}`)).toMatchObject({ charset: name, source: 'header' });
      expect(detectCharset(Buffer.from(`<meta charset="${label}"><p>x`), 'text/html')).toMatchObject({ charset: name, source: 'meta' });
    });

    it('drops labels the standard does not know', () => {
      for (const label of ['utf-7', 'x-klingon', '', '  ']) expect(normalizeCharset(label)).toBeNull();
    });

    it('decodes the replacement encoding\'s labels to one U+FFFD, as browsers do', () => {
      expect(decodeBody(Buffer.from('\x1b$)C<p>hi</p>'), 'text/html; charset=iso-2022-kr')).toEqual({ text: '\ufffd', charset: 'replacement', source: 'header' });
      expect(decodeBody(Buffer.alloc(0), 'text/html; charset=iso-2022-kr').text).toBe('');
    });
  });

  describe('decoded text (the standard\'s decoders)', () => {
    it.each([
      ['iso-8859-9', [0x50, 0x61, 0xfe, 0x61, 0x20, 0xdd, 0xf0, 0x64, 0x69, 0x72], 'Paşa İğdir', 'windows-1254'],
      ['tis-620', [0xa1, 0xc3, 0xd8, 0xa7], 'กรุง', 'windows-874'],
      ['windows-1251', [0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2], 'Привет', 'windows-1251'],
      ['gb2312', [0xd6, 0xd0, 0xce, 0xc4], '中文', 'gbk'],
      ['x-sjis', [0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea], '日本語', 'shift_jis'],
      ['euc-kr', [0xc7, 0xd1, 0xb1, 0xb9, 0xbe, 0xee], '한국어', 'euc-kr'],
      ['big5', [0xa4, 0xa4, 0xa4, 0xe5], '中文', 'big5'],
      ['koi8-u', [0xa4, 0xa7, 0xae], 'єїў', 'koi8-u'],
      // Where Node's ICU decoder (private-use characters) and iconv-lite (U+FFFD for 0x81) differ.
      ['windows-874', [0x81, 0xdb], '\u0081\ufffd', 'windows-874'],
    ])('%s bytes decode as %j', (label, bytes, text, charset) => {
      const fromHeader = decodeBody(Buffer.from(bytes), `text/html; charset=${label}`);
      expect(fromHeader).toEqual({ text, charset, source: 'header' });
      const fromMeta = decodeBody(Buffer.concat([Buffer.from(`<meta charset="${label}">`), Buffer.from(bytes)]), 'text/html');
      expect(fromMeta).toEqual({ text: `<meta charset="${label}">${text}`, charset, source: 'meta' });
    });

    it('decodes UTF-16 with and without a BOM, as declared', () => {
      expect(decodeBody(Buffer.from('héllo', 'utf16le').swap16(), 'text/plain; charset=utf-16be').text).toBe('héllo');
      expect(decodeBody(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('héllo', 'utf16le').swap16()])).text).toBe('héllo');
    });
  });

  describe('XML', () => {
    const cyrillic = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]);

    it('reads the XML declaration, also after leading whitespace', () => {
      for (const lead of ['', '\n', '\r\n  ']) {
        const body = Buffer.concat([Buffer.from(`${lead}<?xml version="1.0" encoding="windows-1251"?><urlset><loc>`), cyrillic]);
        expect(decodeBody(body, 'application/xml')).toMatchObject({ charset: 'windows-1251', source: 'meta' });
        expect(decodeBody(body, 'application/xml').text.endsWith('<loc>Привет')).toBe(true);
      }
      expect(decodeBody(Buffer.from("<?xml version='1.0' encoding='ISO-8859-1'?><a>\xe9</a>", 'latin1'), null).text).toBe("<?xml version='1.0' encoding='ISO-8859-1'?><a>é</a>");
    });

    it('reads a declared UTF-16 as UTF-8, a UTF-16 <?xml prefix as UTF-16, and a meta over the declaration', () => {
      expect(detectCharset(Buffer.from('<?xml version="1.0" encoding="UTF-16"?><a/>'))).toMatchObject({ charset: 'utf-8', source: 'meta' });
      expect(decodeBody(Buffer.from('<?xml version="1.0"?><a>é</a>', 'utf16le'))).toEqual({ text: '<?xml version="1.0"?><a>é</a>', charset: 'utf-16le', source: 'meta' });
      expect(charsetFromMarkup(Buffer.from('<?xml version="1.0" encoding="windows-1250"?><html><meta charset="koi8-r">'))).toBe('koi8-r');
    });
  });
});
