package ecdhx8

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/fanseal/fanseal/internal/passes"
)

var curves = []Curve{P256, Secp256k1}

// verdict classifies a lane's outcome: "ok", "invalid" (ErrInvalidPoint)
// or "identity" (ErrIdentity).
func verdict(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrInvalidPoint):
		return "invalid"
	case errors.Is(err, ErrIdentity):
		return "identity"
	}
	return "other: " + err.Error()
}

// refParse is the reference's verdict on a point encoding: crypto/ecdh's
// NewPublicKey for P-256; decred's ParsePubKey for secp256k1, except that
// the hybrid encodings (0x06, 0x07), which decred accepts, are refused.
// It returns the uncompressed encoding of a valid point.
func refParse(c Curve, b []byte) ([]byte, bool) {
	if c == P256 {
		pub, err := ecdh.P256().NewPublicKey(b)
		if err != nil {
			return nil, false
		}
		return pub.Bytes(), true
	}
	if len(b) == 65 && (b[0] == 6 || b[0] == 7) {
		return nil, false
	}
	pub, err := secp256k1.ParsePubKey(b)
	if err != nil {
		return nil, false
	}
	return pub.SerializeUncompressed(), true
}

// refECDH is the reference's result for one lane: the x-coordinate of
// (k mod n)*P by crypto/ecdh or decred, and the verdict.
func refECDH(t testing.TB, c Curve, k *[32]byte, point []byte) ([32]byte, string) {
	t.Helper()
	var out [32]byte
	if _, ok := refParse(c, point); !ok {
		return out, "invalid"
	}
	cp := curveParams()[c]
	km := new(big.Int).Mod(new(big.Int).SetBytes(k[:]), cp.n)
	if km.Sign() == 0 {
		return out, "identity"
	}
	var kb [32]byte
	km.FillBytes(kb[:])
	if c == P256 {
		priv, err := ecdh.P256().NewPrivateKey(kb[:])
		if err != nil {
			t.Fatal(err)
		}
		pub, err := ecdh.P256().NewPublicKey(point)
		if err != nil {
			t.Fatal(err)
		}
		s, err := priv.ECDH(pub)
		if err != nil {
			t.Fatal(err)
		}
		return [32]byte(s), "ok"
	}
	var s secp256k1.ModNScalar
	s.SetBytes(&kb)
	pub, err := secp256k1.ParsePubKey(point)
	if err != nil {
		t.Fatal(err)
	}
	return [32]byte(secp256k1.GenerateSharedSecret(secp256k1.NewPrivateKey(&s), pub)), "ok"
}

// refPublicKey is the reference's public key of k (uncompressed) and
// verdict.
func refPublicKey(t testing.TB, c Curve, k *[32]byte) ([65]byte, string) {
	t.Helper()
	var out [65]byte
	cp := curveParams()[c]
	km := new(big.Int).Mod(new(big.Int).SetBytes(k[:]), cp.n)
	if km.Sign() == 0 {
		return out, "identity"
	}
	var kb [32]byte
	km.FillBytes(kb[:])
	if c == P256 {
		priv, err := ecdh.P256().NewPrivateKey(kb[:])
		if err != nil {
			t.Fatal(err)
		}
		return [65]byte(priv.PublicKey().Bytes()), "ok"
	}
	var s secp256k1.ModNScalar
	s.SetBytes(&kb)
	return [65]byte(secp256k1.NewPrivateKey(&s).PubKey().SerializeUncompressed()), "ok"
}

// impl is one path: the one in use (IFMA where available), the portable
// fallback, which the other builds use, or ECDHOne and PublicKeyOne, lane
// after lane.
type implT struct {
	name  string
	ecdh  func(Curve, *[Lanes][32]byte, *[Lanes][32]byte, *[Lanes][]byte, int) [Lanes]error
	pub   func(Curve, *[Lanes][65]byte, *[Lanes][32]byte, int) [Lanes]error
	parse func(Curve, *[Lanes][65]byte, *[Lanes][]byte, int) [Lanes]error
}

func paths() []implT {
	ps := []implT{
		{fmt.Sprintf("impl=default/engine=%s", Engine()), ECDH, PublicKeys, ParsePoints},
		{fmt.Sprintf("impl=one/engine=%s", Engine()), ecdhByOne, publicKeysByOne, ParsePoints},
	}
	// Every engine this CPU has, the portable path (generic) last.
	for _, e := range availableEngines() {
		ps = append(ps, implT{"impl=engine/engine=" + e.String(),
			func(c Curve, dst *[Lanes][32]byte, scalars *[Lanes][32]byte, points *[Lanes][]byte, n int) [Lanes]error {
				return ecdhOn(e, c, dst, scalars, points, n)
			},
			func(c Curve, dst *[Lanes][65]byte, scalars *[Lanes][32]byte, n int) [Lanes]error {
				return publicKeysOn(e, c, dst, scalars, n)
			},
			func(c Curve, dst *[Lanes][65]byte, points *[Lanes][]byte, n int) [Lanes]error {
				return parsePointsOn(e, c, dst, points, n)
			}})
	}
	return ps
}

// vecPaths are the vector engines this CPU has (IFMA, AVX2), each alone,
// or the default path where it has none: the tests that run many inputs
// run them on each.
func vecPaths() []implT {
	var ps []implT
	for _, p := range paths() {
		if strings.HasPrefix(p.name, "impl=engine/") && p.name != "impl=engine/engine=generic" {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		ps = paths()[:1]
	}
	return ps
}

// checkECDH runs one batch and compares every lane with the reference;
// lanes n and above of dst must be left alone.
func checkECDH(t testing.TB, im implT, c Curve, scalars *[Lanes][32]byte, points *[Lanes][]byte, n int) {
	t.Helper()
	var dst [Lanes][32]byte
	for i := range dst {
		dst[i] = [32]byte{0: 0xa5, 31: 0x5a}
	}
	errs := im.ecdh(c, &dst, scalars, points, n)
	for i := range Lanes {
		if i >= n {
			if dst[i] != ([32]byte{0: 0xa5, 31: 0x5a}) || errs[i] != nil {
				t.Fatalf("%s %v n=%d: lane %d past n was written", im.name, c, n, i)
			}
			continue
		}
		want, wv := refECDH(t, c, &scalars[i], points[i])
		if gv := verdict(errs[i]); gv != wv || dst[i] != want {
			t.Fatalf("%s %v n=%d lane %d: k=%x P=%x: got %x (%s: %v), want %x (%s)",
				im.name, c, n, i, scalars[i], points[i], dst[i], gv, errs[i], want, wv)
		}
	}
}

func checkPublicKeys(t testing.TB, im implT, c Curve, scalars *[Lanes][32]byte, n int) {
	t.Helper()
	var dst [Lanes][65]byte
	for i := range dst {
		dst[i][0] = 0xa5
	}
	errs := im.pub(c, &dst, scalars, n)
	for i := range Lanes {
		if i >= n {
			if dst[i] != ([65]byte{0: 0xa5}) || errs[i] != nil {
				t.Fatalf("%s %v n=%d: lane %d past n was written", im.name, c, n, i)
			}
			continue
		}
		want, wv := refPublicKey(t, c, &scalars[i])
		if gv := verdict(errs[i]); gv != wv || dst[i] != want {
			t.Fatalf("%s %v n=%d lane %d: k=%x: got %x (%s), want %x (%s)", im.name, c, n, i, scalars[i], dst[i], gv, want, wv)
		}
	}
}

func checkParse(t testing.TB, im implT, c Curve, points *[Lanes][]byte, n int) {
	t.Helper()
	var dst [Lanes][65]byte
	errs := im.parse(c, &dst, points, n)
	for i := range n {
		want, ok := refParse(c, points[i])
		var w [65]byte
		if ok {
			w = [65]byte(want)
		}
		if (errs[i] == nil) != ok || dst[i] != w || (errs[i] != nil && !errors.Is(errs[i], ErrInvalidPoint)) {
			t.Fatalf("%s %v lane %d: %x: got %x (%v), want %x (valid %v)", im.name, c, i, points[i], dst[i], errs[i], w, ok)
		}
	}
}

// encodePoint returns the uncompressed (or compressed) encoding of (x, y).
func encodePoint(x, y *big.Int, compressed bool) []byte {
	if compressed {
		b := make([]byte, 33)
		b[0] = 2 + byte(y.Bit(0))
		x.FillBytes(b[1:])
		return b
	}
	b := make([]byte, 65)
	b[0] = 4
	x.FillBytes(b[1:33])
	y.FillBytes(b[33:])
	return b
}

func randomEncoding(c Curve, r *mrand.Rand) []byte {
	x, y := randomPoint(c)
	return encodePoint(x, y, c == Secp256k1 && r.IntN(2) == 0)
}

func randomScalars() (k [Lanes][32]byte) {
	for i := range k {
		rand.Read(k[i][:])
	}
	return k
}

// differentialCount is how many random multiplications per curve and
// engine the differential test compares with the references:
// ECDHX8_CASES of them (ECDHX8_CASES=1000000: 10^6 lanes, most of the time
// in the references), 100,000 with ECDHX8_LONG=1, else 2,000.
func differentialCount(t *testing.T) int {
	if testing.Short() {
		return 2_000
	}
	if s := os.Getenv("ECDHX8_CASES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("ECDHX8_CASES=%q", s)
		}
		return n
	}
	if os.Getenv("ECDHX8_LONG") != "" {
		return 100_000
	}
	return 2_000
}

// TestECDHRandom compares random agreements of every vector engine with
// the references, in batches of every count 1..8 in turn, half of the
// secp256k1 points compressed.
func TestECDHRandom(t *testing.T) {
	total := differentialCount(t)
	start := time.Now()
	for _, im := range vecPaths() {
		r := mrand.New(mrand.NewPCG(11, 12))
		for _, c := range curves {
			for done, n := 0, 1; done < total; n = n%Lanes + 1 {
				scalars := randomScalars()
				var points [Lanes][]byte
				for i := range n {
					points[i] = randomEncoding(c, r)
				}
				checkECDH(t, im, c, &scalars, &points, n)
				done += n
			}
		}
	}
	t.Logf("%d lanes per curve and engine (%d engines) in %v", total, len(vecPaths()), time.Since(start))
}

// TestECDHOneScalar is the shared-ephemeral shape: one scalar, eight
// points.
func TestECDHOneScalar(t *testing.T) {
	r := mrand.New(mrand.NewPCG(13, 14))
	for _, c := range curves {
		for range 20 {
			scalars := randomScalars()
			var points [Lanes][]byte
			for i := range Lanes {
				scalars[i] = scalars[0]
				points[i] = randomEncoding(c, r)
			}
			for _, im := range vecPaths() {
				checkECDH(t, im, c, &scalars, &points, Lanes)
			}
		}
	}
}

// edgeScalars: 0, 1, 2, n-1, n, n+1, 2^256-1 and other values above n,
// 2^255, every single bit, alternating bits.
func edgeScalars(c Curve) [][32]byte {
	n := curveParams()[c].n
	one := big.NewInt(1)
	top := new(big.Int).Lsh(one, 256)
	vals := []*big.Int{
		big.NewInt(0), one, big.NewInt(2), big.NewInt(3), big.NewInt(15), big.NewInt(16), big.NewInt(17),
		new(big.Int).Sub(n, one), n, new(big.Int).Add(n, one), new(big.Int).Add(n, big.NewInt(2)),
		new(big.Int).Sub(top, one), new(big.Int).Sub(top, big.NewInt(2)),
		new(big.Int).Sub(new(big.Int).Lsh(n, 1), top), // 2n - 2^256 (small)
		new(big.Int).Rsh(new(big.Int).Add(n, top), 1), // between n and 2^256
		new(big.Int).Lsh(one, 255), new(big.Int).Sub(new(big.Int).Lsh(one, 255), one),
		new(big.Int).SetBytes(bytes.Repeat([]byte{0x55}, 32)), new(big.Int).SetBytes(bytes.Repeat([]byte{0xaa}, 32)),
		new(big.Int).SetBytes(bytes.Repeat([]byte{0xf0}, 32)), new(big.Int).SetBytes(bytes.Repeat([]byte{0x0f}, 32)),
	}
	for i := 0; i < 256; i += 7 {
		vals = append(vals, new(big.Int).Lsh(one, uint(i)))
	}
	var out [][32]byte
	for _, v := range vals {
		if v.Cmp(top) < 0 {
			var b [32]byte
			v.FillBytes(b[:])
			out = append(out, b)
		}
	}
	return out
}

// onCurveX returns, for x, a y with (x, y) on the curve, if there is one.
func onCurveX(c Curve, x *big.Int) (*big.Int, bool) {
	cp := curveParams()[c]
	rhs := new(big.Int).Exp(x, big.NewInt(3), cp.p)
	rhs.Add(rhs, new(big.Int).Mul(big.NewInt(cp.a), x))
	rhs.Add(rhs, cp.b)
	rhs.Mod(rhs, cp.p)
	y := new(big.Int).ModSqrt(rhs, cp.p)
	return y, y != nil
}

// edgePoints: G, -G, small multiples of G, the points with x = 0 (P-256
// has them; secp256k1 has none, 7 is not a square), points with x near
// p, with y even and odd.
func edgePoints(t testing.TB, c Curve) [][]byte {
	cp := curveParams()[c]
	var pts [][]byte
	add := func(x, y *big.Int) {
		pts = append(pts, encodePoint(x, y, false))
		if c == Secp256k1 {
			pts = append(pts, encodePoint(x, y, true))
		}
	}
	add(cp.gx, cp.gy)
	add(cp.gx, new(big.Int).Sub(cp.p, cp.gy))
	for _, k := range []int64{2, 3, 4, 5, 7, 8, 15, 16, 17} {
		x, y := refScalarMultAffine(c, big.NewInt(k), cp.gx, cp.gy)
		add(x, y)
	}
	x, y := refScalarMultAffine(c, new(big.Int).Sub(cp.n, big.NewInt(2)), cp.gx, cp.gy)
	add(x, y)
	if y, ok := onCurveX(c, big.NewInt(0)); ok != (c == P256) {
		t.Fatalf("%v: x = 0 on the curve: %v", c, ok)
	} else if ok {
		add(big.NewInt(0), y)
		add(big.NewInt(0), new(big.Int).Sub(cp.p, y))
	}
	found := 0
	for d := int64(1); found < 3; d++ {
		x := new(big.Int).Sub(cp.p, big.NewInt(d))
		if y, ok := onCurveX(c, x); ok {
			add(x, y)
			add(x, new(big.Int).Sub(cp.p, y))
			found++
		}
	}
	for _, p := range pts {
		if _, ok := refParse(c, p); !ok {
			t.Fatalf("%v: edge point %x refused by the reference", c, p)
		}
	}
	return pts
}

// TestECDHEdgeCases puts every (edge scalar, edge point) pair, eight at a
// time, in every lane, for both paths.
func TestECDHEdgeCases(t *testing.T) {
	for _, c := range curves {
		scalars := edgeScalars(c)
		points := edgePoints(t, c)
		type pair struct {
			k [32]byte
			p []byte
		}
		var pairs []pair
		for _, k := range scalars {
			for j := 0; j < len(points); j += 3 {
				pairs = append(pairs, pair{k, points[(j+len(pairs))%len(points)]})
			}
		}
		for _, im := range paths() {
			shifts := Lanes
			if im.name != paths()[0].name || testing.Short() {
				shifts = 1
			}
			for shift := range shifts {
				for start := 0; start < len(pairs); start += Lanes {
					var ks [Lanes][32]byte
					var ps [Lanes][]byte
					for i := range Lanes {
						pr := pairs[(start+i+shift)%len(pairs)]
						ks[i], ps[i] = pr.k, pr.p
					}
					checkECDH(t, im, c, &ks, &ps, Lanes)
				}
			}
		}
	}
}

// invalidPoints are encodings every path must refuse: off the curve,
// coordinates p (and above), the point at infinity (0x00, all-zero
// coordinates), wrong lengths, bad prefixes, the hybrid encodings of
// valid secp256k1 points, compressed x-coordinates of no point.
func invalidPoints(t testing.TB, c Curve) [][]byte {
	cp := curveParams()[c]
	x, y := randomPoint(c)
	var pts [][]byte
	off := new(big.Int).Add(y, big.NewInt(1))
	pts = append(pts, encodePoint(x, off, false))
	pb := cp.p
	pts = append(pts,
		encodePoint(pb, y, false), encodePoint(x, pb, false),
		encodePoint(new(big.Int).Add(pb, big.NewInt(1)), y, false),
		append([]byte{4}, bytes.Repeat([]byte{0xff}, 64)...),
		[]byte{0}, make([]byte, 65), append([]byte{4}, make([]byte, 64)...),
		nil, []byte{4}, []byte{2}, make([]byte, 32), make([]byte, 64), make([]byte, 66),
		append([]byte{4}, make([]byte, 32)...),
	)
	if xp := new(big.Int).Add(x, pb); xp.BitLen() <= 256 {
		pts = append(pts, encodePoint(xp, y, false))
	}
	if yp := new(big.Int).Add(y, pb); yp.BitLen() <= 256 {
		pts = append(pts, encodePoint(x, yp, false))
	}
	// the y-coordinate of the other point with this x, in the
	// uncompressed encoding, is valid; x with y = 0 is not.
	pts = append(pts, encodePoint(x, big.NewInt(0), false))
	good := encodePoint(x, y, false)
	for _, prefix := range []byte{0, 1, 2, 3, 5, 6, 7, 8, 0x14, 0xff} {
		b := bytes.Clone(good)
		b[0] = prefix
		pts = append(pts, b)
	}
	comp := encodePoint(x, y, true)
	for _, prefix := range []byte{0, 1, 4, 5, 6, 7} {
		b := bytes.Clone(comp)
		b[0] = prefix
		pts = append(pts, b)
	}
	// truncated and extended
	pts = append(pts, good[:64], append(bytes.Clone(good), 0), comp[:32], append(bytes.Clone(comp), 0))
	if c == Secp256k1 {
		// hybrid encodings of a valid point, with the right parity
		// (decred accepts them) and the wrong one
		h := bytes.Clone(good)
		h[0] = 6 + byte(y.Bit(0))
		pts = append(pts, h)
		h = bytes.Clone(good)
		h[0] = 7 - byte(y.Bit(0))
		pts = append(pts, h)
		if _, err := secp256k1.ParsePubKey(pts[len(pts)-2]); err != nil {
			t.Fatalf("decred refuses a hybrid encoding: %v", err)
		}
		// compressed: x = p, x = p + 1, x of no point (0 is one)
		for _, bad := range []*big.Int{pb, new(big.Int).Add(pb, big.NewInt(1)), big.NewInt(0), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))} {
			b := make([]byte, 33)
			b[0] = 2
			bad.FillBytes(b[1:])
			pts = append(pts, b, append([]byte{3}, b[1:]...))
		}
		for n, xx := 0, big.NewInt(1); n < 4; xx.Add(xx, big.NewInt(1)) {
			if _, ok := onCurveX(c, xx); !ok {
				pts = append(pts, encodePoint(xx, big.NewInt(0), true), encodePoint(xx, big.NewInt(1), true))
				n++
			}
		}
	} else {
		// compressed points are not accepted for P-256
		pts = append(pts, comp, encodePoint(cp.gx, cp.gy, true))
	}
	for _, p := range pts {
		if _, ok := refParse(c, p); ok {
			t.Fatalf("%v: invalid point %x accepted by the reference", c, p)
		}
	}
	return pts
}

// TestECDHInvalidPoints puts invalid encodings in some lanes and valid
// ones in the others: every invalid lane gets its error, and the other
// lanes their results.
func TestECDHInvalidPoints(t *testing.T) {
	r := mrand.New(mrand.NewPCG(15, 16))
	for _, c := range curves {
		bad := invalidPoints(t, c)
		for _, im := range paths() {
			for mask := 1; mask < 1<<Lanes; mask += 11 {
				for start := 0; start < len(bad); start += Lanes {
					scalars := randomScalars()
					var points [Lanes][]byte
					for i := range Lanes {
						if mask>>i&1 == 1 {
							points[i] = bad[(start+i)%len(bad)]
						} else {
							points[i] = randomEncoding(c, r)
						}
					}
					checkECDH(t, im, c, &scalars, &points, Lanes)
					checkParse(t, im, c, &points, Lanes)
				}
			}
		}
	}
}

// TestEveryLane puts an edge point and an edge scalar in each lane in
// turn, the other lanes random, for each count of lanes in use.
func TestEveryLane(t *testing.T) {
	r := mrand.New(mrand.NewPCG(17, 18))
	for _, c := range curves {
		pts := edgePoints(t, c)
		bad := invalidPoints(t, c)
		ks := edgeScalars(c)
		for n := 1; n <= Lanes; n++ {
			for lane := range n {
				for i := 0; i < 4; i++ {
					scalars := randomScalars()
					var points [Lanes][]byte
					for j := range n {
						points[j] = randomEncoding(c, r)
					}
					scalars[lane] = ks[r.IntN(len(ks))]
					switch i {
					case 0, 1:
						points[lane] = pts[r.IntN(len(pts))]
					case 2:
						points[lane] = bad[r.IntN(len(bad))]
					}
					for _, im := range vecPaths() {
						checkECDH(t, im, c, &scalars, &points, n)
					}
				}
			}
		}
	}
}

func TestPublicKeys(t *testing.T) {
	for _, c := range curves {
		for _, im := range paths() {
			for n := 0; n <= Lanes; n++ {
				scalars := randomScalars()
				checkPublicKeys(t, im, c, &scalars, n)
			}
			ks := edgeScalars(c)
			for start := 0; start < len(ks); start += Lanes {
				var scalars [Lanes][32]byte
				for i := range Lanes {
					scalars[i] = ks[(start+i)%len(ks)]
				}
				checkPublicKeys(t, im, c, &scalars, Lanes)
			}
			count := 200
			if im.name != paths()[0].name || testing.Short() {
				count = 20
			}
			for range count {
				scalars := randomScalars()
				checkPublicKeys(t, im, c, &scalars, Lanes)
			}
		}
	}
}

// TestPublicKeysComb: every digit value in every window of the comb (the
// scalar d*16^w for each w and d), eight at a time.
func TestPublicKeysComb(t *testing.T) {
	for _, c := range curves {
		var batch [Lanes][32]byte
		n := 0
		for w := range 64 {
			for d := 1; d < 16; d++ {
				var k [32]byte
				k[31-w/2] = byte(d << (4 * (w % 2)))
				batch[n] = k
				if n++; n == Lanes {
					for _, im := range vecPaths() {
						checkPublicKeys(t, im, c, &batch, Lanes)
					}
					n = 0
				}
			}
		}
	}
}

func TestParsePoints(t *testing.T) {
	r := mrand.New(mrand.NewPCG(19, 20))
	for _, c := range curves {
		pts := append(edgePoints(t, c), invalidPoints(t, c)...)
		for range 50 {
			pts = append(pts, randomEncoding(c, r))
		}
		for _, im := range paths() {
			for start := 0; start < len(pts); start += 3 {
				var points [Lanes][]byte
				for i := range Lanes {
					points[i] = pts[(start+i)%len(pts)]
				}
				checkParse(t, im, c, &points, Lanes)
			}
		}
	}
}

// TestRefScalarMult compares ECDH with scalar multiplications by the
// math/big reference formulas (double-and-add): an independent check of
// the results, and of the references' agreement with the paper.
func TestRefScalarMult(t *testing.T) {
	for _, c := range curves {
		cp := curveParams()[c]
		var scalars [Lanes][32]byte
		var points [Lanes][]byte
		var px, py [Lanes]*big.Int
		ks := edgeScalars(c)
		for i := range Lanes {
			if i < 4 {
				scalars[i] = ks[(i*5)%len(ks)]
			} else {
				rand.Read(scalars[i][:])
			}
			px[i], py[i] = randomPoint(c)
			points[i] = encodePoint(px[i], py[i], false)
		}
		var dst [Lanes][32]byte
		errs := ECDH(c, &dst, &scalars, &points, Lanes)
		for i := range Lanes {
			x, y := refScalarMultAffine(c, new(big.Int).SetBytes(scalars[i][:]), px[i], py[i])
			if x.Sign() == 0 && y.Sign() == 0 {
				if !errors.Is(errs[i], ErrIdentity) {
					t.Errorf("%v lane %d: want the identity, got %v", c, i, errs[i])
				}
				continue
			}
			var want [32]byte
			x.FillBytes(want[:])
			if errs[i] != nil || dst[i] != want {
				t.Errorf("%v lane %d: got %x (%v), reference formulas give %x", c, i, dst[i], errs[i], want)
			}
		}
		_ = cp
	}
}

func TestAliasing(t *testing.T) {
	r := mrand.New(mrand.NewPCG(21, 22))
	for _, c := range curves {
		for _, im := range paths() {
			scalars := randomScalars()
			var points [Lanes][]byte
			for i := range Lanes {
				points[i] = randomEncoding(c, r)
			}
			var want [Lanes][32]byte
			im.ecdh(c, &want, &scalars, &points, Lanes)
			k := scalars
			im.ecdh(c, &k, &k, &points, Lanes)
			if k != want {
				t.Errorf("%s %v: dst aliasing scalars: wrong result", im.name, c)
			}
		}
	}
}

func TestInputsUnchanged(t *testing.T) {
	r := mrand.New(mrand.NewPCG(23, 24))
	for _, c := range curves {
		scalars := randomScalars()
		var points, copies [Lanes][]byte
		for i := range Lanes {
			points[i] = randomEncoding(c, r)
			copies[i] = bytes.Clone(points[i])
		}
		k := scalars
		var dst [Lanes][32]byte
		var pd [Lanes][65]byte
		ECDH(c, &dst, &k, &points, Lanes)
		ParsePoints(c, &pd, &points, Lanes)
		PublicKeys(c, &pd, &k, Lanes)
		for i := range Lanes {
			if !bytes.Equal(points[i], copies[i]) {
				t.Errorf("%v: point %d modified", c, i)
			}
		}
		if k != scalars {
			t.Errorf("%v: scalars modified", c)
		}
	}
}

func TestCountOutOfRange(t *testing.T) {
	var k [Lanes][32]byte
	var p [Lanes][]byte
	var d [Lanes][32]byte
	var d65 [Lanes][65]byte
	for _, n := range []int{-1, Lanes + 1} {
		for name, f := range map[string]func(){
			"ECDH":        func() { ECDH(P256, &d, &k, &p, n) },
			"PublicKeys":  func() { PublicKeys(P256, &d65, &k, n) },
			"ParsePoints": func() { ParsePoints(Secp256k1, &d65, &p, n) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s with n=%d did not panic", name, n)
					}
				}()
				f()
			}()
		}
	}
}

func TestUnknownCurve(t *testing.T) {
	var k [Lanes][32]byte
	var p [Lanes][]byte
	var d [Lanes][32]byte
	errs := ECDH(Curve(7), &d, &k, &p, 3)
	for i := range Lanes {
		if (i < 3) != errors.Is(errs[i], ErrCurve) {
			t.Errorf("lane %d: %v", i, errs[i])
		}
	}
}

// TestBatchSize: on every engine, PassLanes (8 on IFMA, 4 on AVX2, 1 on
// generic) and BatchSize cutting by it (passes.Size, tested in its
// package).
func TestBatchSize(t *testing.T) {
	defer func(e engineID) { engine = e }(engine)
	for e, lanes := range map[engineID]int{engineGeneric: 1, engineAVX2: 4, engineIFMA: 8} {
		engine = e
		if PassLanes() != lanes {
			t.Errorf("%v: PassLanes() = %d, want %d", e, PassLanes(), lanes)
		}
		for n := -1; n <= 100; n++ {
			if got, want := BatchSize(n), passes.Size(n, lanes); got != want {
				t.Errorf("%v: BatchSize(%d) = %d, want passes.Size's %d", e, n, got, want)
			}
		}
	}
}

func TestCurveString(t *testing.T) {
	if P256.String() != "P-256" || Secp256k1.String() != "secp256k1" || Curve(9).String() != "Curve(9)" {
		t.Error("Curve.String")
	}
}

// TestValidScalar compares ValidScalar with the private-key checks of the
// reference libraries: crypto/ecdh's NewPrivateKey for P-256 (which
// refuses 0 and values at or above n), decred's ModNScalar for secp256k1
// (SetBytes reports an overflow at or above n), on the edge scalars and
// random ones.
func TestValidScalar(t *testing.T) {
	for _, c := range []Curve{P256, Secp256k1} {
		ks := edgeScalars(c)
		for range 500 {
			var k [32]byte
			rand.Read(k[:])
			ks = append(ks, k)
		}
		for _, k := range ks {
			var want bool
			if c == P256 {
				_, err := ecdh.P256().NewPrivateKey(k[:])
				want = err == nil
			} else {
				var s secp256k1.ModNScalar
				want = s.SetBytes(&k) == 0 && !s.IsZero()
			}
			if got := ValidScalar(c, &k); got != want {
				t.Errorf("ValidScalar(%v, %x) = %v, want %v", c, k, got, want)
			}
		}
	}
	var k [32]byte
	k[31] = 1
	if ValidScalar(Curve(7), &k) {
		t.Error("ValidScalar(Curve(7)) = true")
	}
}

// TestBelow compares below with bytes.Compare: equal values, values that
// first differ in each byte (a borrow across every word boundary), both
// curves' p and its neighbours, and random pairs.
func TestBelow(t *testing.T) {
	check := func(a, b [32]byte) {
		t.Helper()
		if got, want := below(&a, &b), bytes.Compare(a[:], b[:]) < 0; got != want {
			t.Fatalf("below(%x, %x) = %v, want %v", a, b, got, want)
		}
	}
	var ps [][32]byte
	for _, c := range curves {
		ps = append(ps, curveParams()[c].pBytes)
	}
	ps = append(ps, [32]byte{}, [32]byte{31: 1}, [32]byte{0: 0xff})
	for _, p := range ps {
		check(p, p)
		for i := range 32 {
			for _, d := range []byte{1, 0x80, 0xff} {
				q := p
				q[i] += d
				check(p, q)
				check(q, p)
			}
		}
	}
	r := mrand.New(mrand.NewPCG(7, 8))
	for range 10000 {
		var a, b [32]byte
		for i := range a {
			a[i], b[i] = byte(r.Uint32()), byte(r.Uint32())
		}
		// Most random pairs differ in their first byte: share a prefix.
		copy(b[:r.IntN(33)], a[:])
		check(a, b)
		check(b, a)
	}
}
