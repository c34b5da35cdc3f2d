/**
 * The few DER encodings an X.509 certificate needs. Node can sign and parse certificates but not
 * create them; writing DER by hand keeps the control plane free of an openssl dependency.
 */

export type Der = Buffer;

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Der {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

export const sequence = (...items: Der[]): Der => tlv(0x30, Buffer.concat(items));
export const set = (...items: Der[]): Der => tlv(0x31, Buffer.concat(items));
export const octetString = (content: Buffer): Der => tlv(0x04, content);
export const utf8String = (text: string): Der => tlv(0x0c, Buffer.from(text, 'utf8'));
export const boolean = (value: boolean): Der => tlv(0x01, Buffer.from([value ? 0xff : 0x00]));

/** Context-specific tags: `[n] EXPLICIT` wraps an encoding, `[n] IMPLICIT` replaces a primitive's tag. */
export const explicit = (n: number, inner: Der): Der => tlv(0xa0 | n, inner);
export const implicit = (n: number, content: Buffer): Der => tlv(0x80 | n, content);

/** A non-negative integer from its big-endian bytes. */
export function unsignedInteger(bytes: Buffer): Der {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export const smallInteger = (n: number): Der => unsignedInteger(Buffer.from([n]));

export function bitString(content: Buffer, unusedBits = 0): Der {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), content]));
}

/** A NamedBitList (e.g. KeyUsage) from bit positions; DER drops trailing zero bits. */
export function namedBits(positions: number[]): Der {
  const highest = Math.max(...positions);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of positions) bytes[Math.floor(bit / 8)] |= 0x80 >> (bit % 8);
  return bitString(bytes, 7 - (highest % 8));
}

export function objectIdentifier(dotted: string): Der {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128))
      chunk.unshift(0x80 | (value & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime (YYMMDDHHMMSSZ) for years up to 2049, GeneralizedTime after, as RFC 5280 requires. */
export function time(date: Date): Der {
  const iso = date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:T]/g, '');
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2), 'ascii')) : tlv(
    0x18,
    Buffer.from(iso, 'ascii'),
  );
}

export function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
