//go:build !purego

package mlkemavx

//go:generate go run gen.go

// poly is an element of R_q, 256 coefficients; see ntt_amd64.s for the
// bound each function takes and leaves.
type poly [256]int16

// ntt replaces p (|c| <= q) by its NTT (FIPS 203 Algorithm 9), unreduced.
//
//go:noescape
func ntt(p *poly)

// invNTT replaces p (any int16 but -2^15) by its inverse NTT (FIPS 203
// Algorithm 10) times 2^16, |c| < q.
//
//go:noescape
func invNTT(p *poly)

// basemulAcc sets out to (a_0∘b_0 + a_1∘b_1 + a_2∘b_2) · 2^-16, ∘ the
// NTT-domain product (FIPS 203 Algorithm 11), for |a| <= q.
//
//go:noescape
func basemulAcc(out *poly, a, b *[3]poly)

// cbd2 sets p to SamplePolyCBD_2(buf) (FIPS 203 Algorithm 8): coefficient
// i is (b[4i] + b[4i+1]) - (b[4i+2] + b[4i+3]) of the bits b of buf, in
// [-2, 2]. The noise is secret: it is computed with masks and additions,
// without a branch or a table.
//
//go:noescape
func cbd2(p *poly, buf *[prfLen]byte)

// compress10 writes ByteEncode_10(Compress_10((u + e) mod q)) to b, for u
// from invNTT and e from cbd2 (FIPS 203 Algorithm 14, lines 19 and 22).
//
//go:noescape
func compress10(b *[320]byte, u, e *poly)

// compress4 writes ByteEncode_4(Compress_4((v + e + μ) mod q)) to b, μ
// the message m decompressed (⌈q/2⌉ where bit n of m is set), for v from
// invNTT and e from cbd2 (Algorithm 14, lines 20, 21 and 23).
//
//go:noescape
func compress4(b *[128]byte, v, e *poly, m *[32]byte)

// message writes bit n of m as Compress_1((v_n - w_n) mod q), for v from
// decode4 and w from invNTT (Algorithm 15, lines 6 and 7).
//
//go:noescape
func message(m *[32]byte, v, w *poly)

// decode10 sets p to Decompress_10(ByteDecode_10(b)), in [0, q).
//
//go:noescape
func decode10(p *poly, b *[320]byte)

// decode4 sets p to Decompress_4(ByteDecode_4(b)), in [0, q).
//
//go:noescape
func decode4(p *poly, b *[128]byte)
