import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { charsetFromContentType, charsetFromMarkup, decodeBody, detectCharset, normalizeCharset } from '../../pipeline/net/charset.js';

describe('pipeline/net/charset', () => {
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

  it('finds meta charset, http-equiv and the XML declaration in the first 4 KB only', () => {
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
});
