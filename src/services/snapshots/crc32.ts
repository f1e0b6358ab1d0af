/**
 * CRC-32 of a concatenation from the CRCs of its parts (zlib's `crc32_combine`, which Node does not
 * expose): a gzip trailer for segments compressed apart, without reading their bytes again.
 * The algorithm is zlib's (1.2.12 and later): multiply the first CRC by x^(8 × length of the second)
 * modulo the CRC polynomial, then add the second.
 */

/** The CRC-32 polynomial, bit-reflected. */
const POLY = 0xedb88320;

/** a × b modulo the polynomial (both bit-reflected). */
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0 to 31. */
const X2N = (() => {
  const table = new Uint32Array(32);
  let p = 0x40000000; // x^1
  table[0] = p;
  for (let n = 1; n < 32; n++) {
    p = multiplyModP(p, p);
    table[n] = p;
  }
  return table;
})();

/** x^(n × 2^k) modulo the polynomial. */
function xPowModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  while (n > 0) {
    if (n % 2 === 1) p = multiplyModP(X2N[k & 31]!, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** The CRC-32 of A followed by B, from crc(A), crc(B) and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA >>> 0;
  return (multiplyModP(xPowModP(lengthB, 3), crcA >>> 0) ^ crcB) >>> 0;
}
