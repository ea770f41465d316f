// Package ecdhx8 computes up to eight elliptic-curve scalar multiplications
// per call, for P-256 and secp256k1, on the best of three engines this CPU
// has (Engine names it): with AVX-512 IFMA, one computation whose eight
// 64-bit vector lanes each carry an independent scalar and point (radix
// 2^52); without IFMA but with AVX2, the same formulas, windows and tables
// on four lanes of 256-bit registers (radix 2^29), one pass for up to four
// lanes and two for more; elsewhere, and under the purego build tag, with
// portable constant-time implementations one lane at a time (crypto/ecdh
// for P-256; for secp256k1 internal/k256, or under purego
// gitlab.com/yawning/secp256k1-voi; github.com/decred/dcrd/dcrec/secp256k1/v4
// parses the points). ECDHOne
// and PublicKeyOne compute a single operation on the same paths (on the
// AVX2 engine, the portable path: a one-lane pass costs more).
//
// With internal/x25519x8 and internal/k256, it is one of the places in
// fanseal where field arithmetic is fanseal's own rather than a
// library's. The vector code is
// generated, by gen.go into ifma_amd64.s and by gen_avx2.go into
// avx2_amd64.s, whose headers hold the
// representation, the bound argument of every operation and the
// constant-time argument; gen.go proves the limb bounds it prints
// (it tracks them exactly and refuses to emit an operation whose
// preconditions do not hold), and codegen.CheckIntervals checks those of
// avx2_amd64.s on its instructions (TestIntervalsAVX2). The point formulas are the complete ones of
// Renes, Costello and Batina ("Complete addition formulas for prime order
// elliptic curves", 2015), so that no input is exceptional and nothing
// branches on data.
//
// The tests compare every field operation with math/big at the edges of
// its input bounds, the point formulas with a math/big transcription of
// the paper's algorithms, and every result of every engine with crypto/ecdh and decred's
// secp256k1 (random and structured scalars and points, invalid encodings,
// every lane position, the Wycheproof vectors); fuzz targets do the same
// on arbitrary inputs. Mutation tests (ECDHX8_MUTATIONS=1) check that
// the tests catch deliberate errors in both generators, and a timing test
// (ECDHX8_TIMING=1) applies Welch's t-test to fixed against random inputs
// on every vector engine.
//
// On the vector engines, scalars, intermediate points and results are handled
// in constant time (no secret-dependent branch or memory address, in the
// assembly and in the Go code that packs and unpacks them); only the
// reported errors reveal anything: which lanes had an invalid point
// (public data) and which results are the point at infinity (scalar = 0
// mod n). The portable path is constant time too: crypto/ecdh's P-256,
// and internal/k256's ECDH and PublicKey (complete formulas, fixed
// windows, table lookups that scan the whole table; under purego
// secp256k1-voi's ScalarMult and ScalarBaseMult, of the same design with
// fiat-crypto's field), which a second timing test (TestTimingPortable,
// run by CI in both builds) checks; decred only parses and validates points, which are public.
// Nothing in this package multiplies by a scalar with decred's
// variable-time ScalarMultNonConst or ScalarBaseMultNonConst.
package ecdhx8

import (
	"crypto/fips140"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"sync"

	"github.com/fanseal/fanseal/internal/passes"
)

//go:generate go run gen.go
//go:generate go run gen_avx2.go

// Lanes is the number of scalar multiplications computed in one pass.
const Lanes = 8

// Curve selects the curve of a call.
type Curve int

const (
	// P256 is NIST P-256 (secp256r1): points as crypto/ecdh encodes
	// them, uncompressed SEC 1 only.
	P256 Curve = iota
	// Secp256k1 is the curve of Bitcoin: points compressed or
	// uncompressed, as decred's secp256k1.ParsePubKey accepts them,
	// except the hybrid encodings.
	Secp256k1
)

// String returns "P-256" or "secp256k1".
func (c Curve) String() string {
	switch c {
	case P256:
		return "P-256"
	case Secp256k1:
		return "secp256k1"
	}
	return fmt.Sprintf("Curve(%d)", int(c))
}

var (
	// ErrInvalidPoint is wrapped by the error of a lane whose point
	// encoding is refused: wrong length or prefix, a coordinate not
	// below p, a point not on the curve, an x-coordinate without a
	// point, the hybrid encodings of secp256k1.
	ErrInvalidPoint = errors.New("ecdhx8: invalid point")
	// ErrIdentity is the error of a lane whose result is the point at
	// infinity: its scalar is 0 modulo the group order.
	ErrIdentity = errors.New("ecdhx8: result is the point at infinity")
	// ErrCurve is the error of every lane of a call with an unknown
	// Curve.
	ErrCurve = errors.New("ecdhx8: unknown curve")
)

// Accelerated reports whether ECDH, PublicKeys and ParsePoints run on
// vector code: the AVX-512 IFMA engine or the AVX2 engine (see Engine).
// When false, they call the reference implementations once per lane, and
// a caller gains nothing from batching. In FIPS 140-3 mode, P-256 runs on
// crypto/ecdh whatever Accelerated says.
func Accelerated() bool { return engine != engineGeneric }

// Engine names the engine ECDH, PublicKeys and ParsePoints run on here:
//
//   - "avx512ifma": with AVX-512 IFMA, eight lanes of 64-bit vector
//     lanes in radix 2^52 (ifma_amd64.s), one pass for any count;
//   - "avx2": without IFMA but with AVX2, the same formulas, windows and
//     tables on four lanes of 256-bit registers in radix 2^29
//     (avx2_amd64.s): one pass for up to four lanes, two for more;
//   - "generic": elsewhere, and under the purego build tag, the
//     portable path one lane at a time.
func Engine() string { return engine.String() }

// An engineID is one of the engines.
type engineID uint8

const (
	engineGeneric engineID = iota
	engineAVX2
	engineIFMA
)

func (e engineID) String() string {
	return [...]string{"generic", "avx2", "avx512ifma"}[e]
}

// engine is the engine the exported functions use: the first of IFMA and
// AVX2 that the CPU has (availableEngines), else generic.
var engine = availableEngines()[0]

// passLanes returns the lanes of one pass of engine e.
func passLanes(e engineID) int {
	switch e {
	case engineIFMA:
		return Lanes
	case engineAVX2:
		return 4
	}
	return 1
}

// PassLanes returns how many lanes one pass of the engine in use computes
// for the price of one: 8 on the IFMA engine, 4 on the AVX2 engine (a
// call of five to eight lanes is two passes), 1 on the generic engine,
// whose cost grows with every lane.
func PassLanes() int { return passLanes(engine) }

// PassCost returns what one pass of PassLanes lanes of ECDH costs on one
// core, in agreements of the portable path one at a time (crypto/ecdh's
// for P-256, internal/k256's for secp256k1), as measured on AMD Zen 5
// (BenchmarkECDH, engine=ecdh and engine=k256 for the unit): on the IFMA
// engine 1.8 for P-256 and 0.8 for secp256k1 (eight lanes); on the AVX2
// engine 3.4 and 1.75 (four lanes: 1.16 and 2.3 times the portable path's
// throughput per lane); 1 on the generic engine. A caller that could compute the
// agreements one at a time instead weighs the two with it. In FIPS 140-3
// mode P-256 is on crypto/ecdh: 1.
func PassCost(c Curve) float64 {
	if !c.valid() || !c.vector() {
		return 1
	}
	switch engine {
	case engineIFMA:
		return passCostIFMA[c]
	case engineAVX2:
		return passCostAVX2[c]
	}
	return 1
}

// passCostIFMA and passCostAVX2 are the measured costs of PassCost, per
// curve.
var (
	passCostIFMA = [2]float64{P256: 1.8, Secp256k1: 0.8}
	passCostAVX2 = [2]float64{P256: 3.4, Secp256k1: 1.75}
)

// ECDH sets dst[i] to the 32-byte big-endian affine x-coordinate of
// scalars[i]·P_i for i < n, P_i parsed from points[i] and scalars[i] a
// 32-byte big-endian integer (any value: the result is (k mod n)·P_i for
// the group order n, as crypto/ecdh's PrivateKey.Bytes and decred's
// PrivateKey.Serialize encode keys). errs[i] is non-nil where lane i
// failed, wrapping ErrInvalidPoint for a refused point, or ErrIdentity for
// a result at infinity; dst[i] is then zeroed. An invalid point affects
// its own lane only. Lanes n and above of dst are left alone; dst may
// alias scalars. n must be in [0, Lanes].
//
// On the IFMA engine every call costs the same, whatever n is: a call
// with one lane costs as much as a call with eight. On the AVX2 engine a
// call is one pass of four lanes for n up to 4 and two for n of 5 to 8.
func ECDH(c Curve, dst *[Lanes][32]byte, scalars *[Lanes][32]byte, points *[Lanes][]byte, n int) (errs [Lanes]error) {
	checkCount(n)
	if !c.valid() {
		return curveErrors(n)
	}
	if c.vector() {
		return ecdhVec(engine, c, dst, scalars, points, n)
	}
	return ecdhGeneric(c, dst, scalars, points, n)
}

// ECDHOne computes one key agreement, as a lane of ECDH does: the 32-byte
// big-endian x-coordinate of scalar·P, P parsed from point, with ECDH's
// errors. It is constant time in the scalar on every CPU and in every
// build: a one-lane pass of the IFMA code where ECDH uses it
// (docs/PERFORMANCE.md), the portable path elsewhere (on the AVX2 engine
// too, where a one-lane pass costs PassCost agreements of it).
func ECDHOne(c Curve, scalar *[32]byte, point []byte) (out [32]byte, err error) {
	if !c.valid() {
		return out, ErrCurve
	}
	if !c.oneVector() {
		return ecdhPortable(c, scalar, point)
	}
	var dst, scalars [Lanes][32]byte
	var points [Lanes][]byte
	scalars[0], points[0] = *scalar, point
	errs := ecdhVec(engine, c, &dst, &scalars, &points, 1)
	clear(scalars[0][:])
	out = dst[0]
	clear(dst[0][:])
	return out, errs[0]
}

// PublicKeyOne returns the uncompressed SEC 1 encoding of scalar·G, as a
// lane of PublicKeys does, with its errors, in constant time on every CPU
// and in every build, on the paths ECDHOne takes.
func PublicKeyOne(c Curve, scalar *[32]byte) (out [65]byte, err error) {
	if !c.valid() {
		return out, ErrCurve
	}
	if !c.oneVector() {
		return publicKeyPortable(c, scalar)
	}
	var dst [Lanes][65]byte
	var scalars [Lanes][32]byte
	scalars[0] = *scalar
	errs := publicKeysVec(engine, c, &dst, &scalars, 1)
	clear(scalars[0][:])
	return dst[0], errs[0]
}

// PublicKeys sets dst[i] to the uncompressed SEC 1 encoding (0x04 || X ||
// Y, 65 bytes) of scalars[i]·G for i < n, G the curve's generator and
// scalars[i] as in ECDH. errs[i] is ErrIdentity where the scalar is 0 mod
// n (dst[i] is then zeroed). n must be in [0, Lanes].
func PublicKeys(c Curve, dst *[Lanes][65]byte, scalars *[Lanes][32]byte, n int) (errs [Lanes]error) {
	checkCount(n)
	if !c.valid() {
		return curveErrors(n)
	}
	if c.vector() {
		return publicKeysVec(engine, c, dst, scalars, n)
	}
	return publicKeysGeneric(c, dst, scalars, n)
}

// ParsePoints validates points[i] for i < n as ECDH does and sets dst[i]
// to its uncompressed encoding: for P-256 the input itself, for a
// compressed secp256k1 key the point with its y-coordinate recovered (in
// one pass for all eight lanes on the IFMA path). errs[i] wraps
// ErrInvalidPoint where the point is refused; dst[i] is then zeroed.
// n must be in [0, Lanes].
func ParsePoints(c Curve, dst *[Lanes][65]byte, points *[Lanes][]byte, n int) (errs [Lanes]error) {
	checkCount(n)
	if !c.valid() {
		return curveErrors(n)
	}
	if c.vector() {
		return parsePointsVec(engine, c, dst, points, n)
	}
	return parsePointsGeneric(c, dst, points, n)
}

// BatchSize returns how many lanes to fill per call when n operations are
// cut into consecutive calls of one pass each (PassLanes lanes): as few
// passes as possible, spread evenly, as passes.Size says.
func BatchSize(n int) int { return passes.Size(n, PassLanes()) }

func checkCount(n int) {
	if n < 0 || n > Lanes {
		panic(fmt.Sprintf("ecdhx8: %d lanes (allowed: 0 to %d)", n, Lanes))
	}
}

func (c Curve) valid() bool { return c == P256 || c == Secp256k1 }

// vector reports whether c's operations run on the vector code of the
// engine in use: where the CPU has one, except for P-256 in FIPS 140-3
// mode (GODEBUG=fips140=on or only), where every P-256 operation is
// crypto/ecdh's, the validated module's. (secp256k1 is not a FIPS 140-3
// curve; its code is the same in either mode.)
func (c Curve) vector() bool { return engine != engineGeneric && !(c == P256 && fips140.Enabled()) }

// oneVector reports whether ECDHOne and PublicKeyOne run a one-lane pass
// of the vector code: on the IFMA engine, where that pass is a little
// faster than the portable path; not on the AVX2 engine, whose one-lane
// pass costs more than the portable path's one agreement (PassCost).
func (c Curve) oneVector() bool { return c.vector() && engine == engineIFMA }

// ecdhOn, publicKeysOn and parsePointsOn run a call on the engine e (which
// the tests choose): its vector code, or the portable path.
func ecdhOn(e engineID, c Curve, dst *[Lanes][32]byte, scalars *[Lanes][32]byte, points *[Lanes][]byte, n int) [Lanes]error {
	checkCount(n)
	if e == engineGeneric {
		return ecdhGeneric(c, dst, scalars, points, n)
	}
	return ecdhVec(e, c, dst, scalars, points, n)
}

func publicKeysOn(e engineID, c Curve, dst *[Lanes][65]byte, scalars *[Lanes][32]byte, n int) [Lanes]error {
	checkCount(n)
	if e == engineGeneric {
		return publicKeysGeneric(c, dst, scalars, n)
	}
	return publicKeysVec(e, c, dst, scalars, n)
}

func parsePointsOn(e engineID, c Curve, dst *[Lanes][65]byte, points *[Lanes][]byte, n int) [Lanes]error {
	checkCount(n)
	if e == engineGeneric {
		return parsePointsGeneric(c, dst, points, n)
	}
	return parsePointsVec(e, c, dst, points, n)
}

func curveErrors(n int) (errs [Lanes]error) {
	for i := range n {
		errs[i] = ErrCurve
	}
	return errs
}

// params are a curve's public constants.
type params struct {
	p, n, b, gx, gy *big.Int
	a               int64
	pBytes          [32]byte // p, big-endian
	nBytes          [32]byte // n, big-endian
}

func hexParam(s string) *big.Int {
	x, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic("ecdhx8: bad constant " + s)
	}
	return x
}

func newParams(p, n, b, gx, gy string, a int64) *params {
	c := &params{p: hexParam(p), n: hexParam(n), b: hexParam(b), gx: hexParam(gx), gy: hexParam(gy), a: a}
	c.p.FillBytes(c.pBytes[:])
	c.n.FillBytes(c.nBytes[:])
	return c
}

// curveParams returns the curves' parameters, parsed when first needed
// rather than when the program starts.
var curveParams = sync.OnceValue(func() *[2]*params {
	return &[2]*params{
		P256: newParams(
			"ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
			"ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
			"5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
			"6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
			"4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
			-3),
		Secp256k1: newParams(
			"fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f",
			"fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
			"7",
			"79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
			"483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8",
			0),
	}
})

// encoding is the structure of a point encoding, checked before any
// arithmetic: the coordinates are below p; whether the point is on the
// curve is left to the caller.
type encoding struct {
	x, y       [32]byte // big-endian; y is zero for a compressed point
	compressed bool
	odd        bool // compressed: the parity of y
}

// parseEncoding checks the structure of b for curve c: P-256 accepts the
// uncompressed SEC 1 encoding only (as crypto/ecdh: 0x04 || X || Y, 65
// bytes); secp256k1 also accepts the compressed one (0x02 or 0x03 || X, 33
// bytes), but not the hybrid encodings (0x06 or 0x07 || X || Y), which
// decred's ParsePubKey accepts and this package refuses. Points are public:
// this function branches on their length and prefix and on its verdicts,
// but compares the coordinates with p in a time that does not depend on
// their values (below).
func parseEncoding(c Curve, b []byte) (e encoding, err error) {
	cp := curveParams()[c]
	switch {
	case len(b) == 65 && b[0] == 4:
	case c == Secp256k1 && len(b) == 65 && (b[0] == 6 || b[0] == 7):
		return e, fmt.Errorf("%w: hybrid encoding (prefix %#02x) refused", ErrInvalidPoint, b[0])
	case c == Secp256k1 && len(b) == 33 && (b[0] == 2 || b[0] == 3):
		e.compressed, e.odd = true, b[0] == 3
	case len(b) == 65 || len(b) == 33:
		return e, fmt.Errorf("%w: unsupported prefix %#02x for %d bytes", ErrInvalidPoint, b[0], len(b))
	default:
		return e, fmt.Errorf("%w: %d bytes", ErrInvalidPoint, len(b))
	}
	copy(e.x[:], b[1:33])
	if !below(&e.x, &cp.pBytes) {
		return e, fmt.Errorf("%w: x-coordinate not below p", ErrInvalidPoint)
	}
	if !e.compressed {
		copy(e.y[:], b[33:65])
		if !below(&e.y, &cp.pBytes) {
			return e, fmt.Errorf("%w: y-coordinate not below p", ErrInvalidPoint)
		}
	}
	return e, nil
}

// below reports whether the big-endian a is below b, in a time that does
// not depend on where they first differ (unlike bytes.Compare, which
// stops there): the borrow of a − b over four 64-bit words. Points are
// public, but a point-dependent time would blur TestTiming's point
// classes, which measure the engines.
func below(a, b *[32]byte) bool {
	var borrow uint64
	for i := 24; i >= 0; i -= 8 {
		_, borrow = bits.Sub64(binary.BigEndian.Uint64(a[i:]), binary.BigEndian.Uint64(b[i:]), borrow)
	}
	return borrow == 1
}

var (
	errNotOnCurve = fmt.Errorf("%w: not on the curve", ErrInvalidPoint)
	errNoPoint    = fmt.Errorf("%w: no point has this x-coordinate", ErrInvalidPoint)
)
