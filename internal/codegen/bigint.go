package codegen

import "math/big"

// Shorthands for the bound arithmetic: each returns a new value.

// Bi returns x.
func Bi(x uint64) *big.Int { return new(big.Int).SetUint64(x) }

// Pow2 returns 2^n.
func Pow2(n uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), n) }

// Add returns a + b.
func Add(a, b *big.Int) *big.Int { return new(big.Int).Add(a, b) }

// Sub returns a - b.
func Sub(a, b *big.Int) *big.Int { return new(big.Int).Sub(a, b) }

// Mul returns a * b.
func Mul(a, b *big.Int) *big.Int { return new(big.Int).Mul(a, b) }

// Rsh returns a >> n.
func Rsh(a *big.Int, n uint) *big.Int { return new(big.Int).Rsh(a, n) }

// Min returns the smaller of a and b (a itself or b itself).
func Min(a, b *big.Int) *big.Int {
	if a.Cmp(b) < 0 {
		return a
	}
	return b
}

// Hex returns the integer of the hexadecimal digits s, and panics if s is
// not one.
func Hex(s string) *big.Int {
	x, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic("codegen: not a hexadecimal integer: " + s)
	}
	return x
}
