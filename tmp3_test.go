package fanseal
import ("testing";"fmt")
func BenchmarkTmpPar(b *testing.B){ key:=make([]byte,32); for _, s := range []Suite{X25519,P256} { _, rs := identities(b, s, 20); for _, c := range []struct{st Strategy; p int}{{Shared,1},{SharedParallel,2}} { b.Run(fmt.Sprintf("suite=%s/st=%s/p=%d", s, c.st, c.p), func(b *testing.B){ benchSeal(b, &Sealer{Strategy:c.st, Parallelism:c.p}, key, rs) }) } } }
