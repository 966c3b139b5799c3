// Which algorithm a PEM key is for, read from the key itself: the OID of its AlgorithmIdentifier, the
// first object identifier of a PKCS#8 private key or an SPKI public key. Trying each algorithm in turn is
// not a test: workerd's WebCrypto imports an RSA key as Ed25519 and fails only when it signs.

/** AlgorithmIdentifier OIDs (DER, tag and length included) → the JWS algorithm used with such a key. */
const OIDS = [
  ['EdDSA', [0x06, 0x03, 0x2b, 0x65, 0x70]], // 1.3.101.112, Ed25519
  ['RS256', [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]], // 1.2.840.113549.1.1.1, rsaEncryption
  ['ES256', [0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]], // 1.2.840.10045.2.1, id-ecPublicKey
];

/**
 * The JWS algorithm of a PEM key (`EdDSA`, `RS256`, `ES256`), or `undefined` when it is none of them or
 * not a PEM. (An EC key is taken as P-256: ES256 is the only EC algorithm allowed here, and the import
 * checks the curve.)
 * @param {string} pem
 */
export function pemAlgorithm(pem) {
  const body = pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  let der;
  try {
    der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
  // The AlgorithmIdentifier comes within the first few dozen bytes of either structure.
  const head = der.subarray(0, 40);
  for (const [alg, oid] of OIDS) {
    for (let i = 0; i + oid.length <= head.length; i++) {
      if (oid.every((b, k) => head[i + k] === b)) return alg;
    }
  }
  return undefined;
}
