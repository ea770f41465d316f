// Package mlkemavx is ML-KEM-768 (FIPS 203) written for AVX-512: the
// ring arithmetic (the NTT, its inverse and the NTT-domain products), the
// noise sampler and the ciphertext's compression and encoding in
// generated AVX-512BW assembly; the nine XOFs of the matrix, the seven
// PRFs of an encapsulation and the hashes of batched decapsulations in
// internal/keccakx8's eight-way Keccak; and the rest (the matrix's
// rejection sampling, the keys' encoding, the Fujisaki-Okamoto transform
// with implicit rejection) in constant-time Go.
//
// It is an engine of internal/mlkem768, which chooses it where the CPU
// has AVX-512F and AVX-512BW and FIPS 140-3 mode is off; it is built
// only on amd64 without the purego tag. Every output is FIPS 203's, byte
// for byte: the tests hold it to crypto/mlkem's and to the C2SP CCTV
// vectors.
package mlkemavx
