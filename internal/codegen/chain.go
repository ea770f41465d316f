package codegen

import "math/big"

// A Chain is an addition chain: named values, each a power of the input
// "z", built by squarings and products. A generator records each step it
// emits, and checks with Exp that the chain computes the power it wants
// (an inversion z^(p-2), a square root z^((p+1)/4)).
type Chain struct{ exp map[string]*big.Int }

// NewChain returns a chain whose only value is its input, "z" = z^1.
func NewChain() *Chain { return &Chain{exp: map[string]*big.Int{"z": big.NewInt(1)}} }

// Sqn records dst = src^(2^n), n squarings.
func (c *Chain) Sqn(dst, src string, n int) {
	c.exp[dst] = new(big.Int).Lsh(c.value(src), uint(n))
}

// Mul records dst = a*b.
func (c *Chain) Mul(dst, a, b string) {
	c.exp[dst] = new(big.Int).Add(c.value(a), c.value(b))
}

// Exp returns the exponent e of value name = z^e.
func (c *Chain) Exp(name string) *big.Int { return new(big.Int).Set(c.value(name)) }

func (c *Chain) value(name string) *big.Int {
	e, ok := c.exp[name]
	if !ok {
		panic("codegen: chain value " + name + " used before it is computed")
	}
	return e
}
