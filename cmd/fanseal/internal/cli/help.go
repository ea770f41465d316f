package cli

// The usage and help of each command but sim (sim.go). TestHelpMatchesFlags
// checks every flag the text mentions against the flags the command
// defines, and every flag it defines against the text.

const keygenUsage = `fanseal keygen [--suite SUITE | --pq] [--age] [-o OUTPUT]
fanseal keygen -y [--age] [-o OUTPUT] [INPUT]
`

const keygenHelp = `
Without -y, generate an identity (a secret key) and write it to OUTPUT
(default: standard output), under comments that say when it was created,
its suite, its key identifier and its public key, as age-keygen does. The
public key also goes to standard error, as "Public key: ...", unless the
key is shown on a terminal already. An OUTPUT file is readable by you only.

x25519 and mlkem768x25519 keys are written in age's spelling (age1...,
age1pq1..., AGE-SECRET-KEY-...), so that one key file serves fanseal and
age; p256 and secp256k1 keys, which age does not have, in fanseal's
(fanseal_p256_..., FANSEAL_SECRET_...). fanseal reads both spellings.

With -y, read the identity file INPUT (default: standard input; fanseal's,
one age-keygen wrote, or an SSH private key) and print the public key of
every identity in it, one per line: a recipients file, ready for fanseal
encrypt and, where all are age's, for age (an SSH key's in its
authorized_keys form). The key identifier of each, as fanseal inspect
shows it, goes to standard error.

Options:
        --suite SUITE        The suite of the new identity: p256, x25519 (the
                             default), secp256k1, or mlkem768x25519
                             (post-quantum, ML-KEM-768 + X25519).
        --pq                 A post-quantum identity: --suite
                             mlkem768x25519, as age-keygen -pq (which works
                             too).
        --age                Refuse the suites age has no form for (p256,
                             secp256k1), so that every key written or
                             printed is one age reads.
    -y                       Print the public keys of the identity file INPUT
                             instead of generating one.
    -o, --output OUTPUT      Write to OUTPUT instead of standard output. An
                             existing file is never replaced: losing a secret
                             key is worse than any error (a device, such as
                             /dev/stdout, is written as usual).
    -h, --help               Print this help.

` + outputPointer + `

Examples:
    $ fanseal keygen -o alice.key
    Public key: age1...
    $ fanseal keygen -y alice.key >> team.txt
    $ fanseal keygen --pq -o robot.key
    Public key: age1pq1...
`

const encryptUsage = `fanseal encrypt (-r RECIPIENT | -R PATH | -i PATH | -j PLUGIN)... [-a] [--identified] [-v] [-o OUTPUT] [INPUT]
fanseal encrypt --age (-r RECIPIENT | -R PATH | -i PATH | -j PLUGIN)... [-a] [-o OUTPUT] [INPUT]
fanseal encrypt -p [--age] [-a] [-o OUTPUT] [INPUT]
`

const encryptHelp = `
Seal INPUT (default: standard input) for every recipient, so that each
opens it with its own identity and one key agreement. A key given more
than once (with -r and in a -R file, in two files, or in fanseal's and
age's spelling) is one recipient, with a warning on standard error that
names the places. Post-quantum (mlkem768x25519) and
classical recipients cannot share an envelope.

The envelope is private, as an age file is: it does not say who its
recipients are, not even to someone who holds all their public keys, nor
that two envelopes have a recipient in common, and each recipient still
opens it with one key agreement (each stanza carries a tag that only its
recipient can compute). With --identified, each stanza carries its
recipient's key identifier instead, for systems that want anyone with
the public keys to see who an envelope is for (fanseal inspect -R then
names them). fanseal versions without private envelopes refuse them as
unsupported: decrypt them with this version, or seal with --identified
for older readers.

Recipients are fanseal's keys (fanseal_<suite>_...), age's (age1...,
age1pq1...), SSH public keys (ssh-ed25519, ssh-rsa of 2048 to 4096 bits
and ecdsa-sha2-nistp256 lines, as in authorized_keys, .pub files and
GitHub's https://github.com/NAME.keys, comments kept, no options; other
SSH key types are refused naming the file and line), and age plugin
recipients (age1NAME1..., through the program age-plugin-NAME on the
PATH, whose age stanza the envelope carries). An ssh-ed25519 key opens
with one key agreement, like an x25519 key.

With -p, seal for a passphrase instead, asked twice on the terminal (never
taken from an argument, never echoed), with scrypt tuned to about a second
on this machine (work factor 2^18 to 2^22); an empty answer autogenerates
a passphrase of ten words, shown on the terminal only, as age does. A
passphrase is alone in its envelope: -p takes no -r, -R or -i. -j
batchpass (age's batchpass plugin, built in) takes it from the environment
instead: AGE_PASSPHRASE, or the descriptor AGE_PASSPHRASE_FD, at the work
factor AGE_PASSPHRASE_WORK_FACTOR (18 by default).

With --age, write an age v1 file instead, with age's own library
(filippo.io/age v1.3.2), for recipients who have only age: age opens it,
and so does fanseal decrypt. Its recipients are the keys age knows:
x25519 (age1... or fanseal_x25519_...), mlkem768x25519 (age1pq1... or
fanseal_mlkem768x25519_...), SSH public keys (ssh-ed25519 and ssh-rsa
lines, as in authorized_keys or GitHub's .keys files), age's tagged keys
(age1tag1..., age1tagpq1...) and plugin recipients (age1NAME1..., through
the program age-plugin-NAME on the PATH). fanseal-only suites (p256,
secp256k1) are refused, naming the key. With -p, the age file is sealed
for a passphrase, as above; fanseal decrypt and age open it.

Options:
    -r, --recipient RECIPIENT     Seal for the public key RECIPIENT:
                                  fanseal_<suite>_..., age's age1...
                                  (x25519) and age1pq1... (mlkem768x25519),
                                  an SSH public key line, or an age plugin
                                  recipient. Can be repeated.
    -R, --recipients-file PATH    Seal for every public key in the file PATH,
                                  one per line; blank lines and lines starting
                                  with # are ignored, so age's recipients
                                  files work. - reads the keys from standard
                                  input (then INPUT must be a file). Can be
                                  repeated.
    -i, --identity PATH           Seal for the public key of every identity in
                                  the identity file PATH (as age does with -i),
                                  an SSH private key's too. Can be repeated.
    -j PLUGIN                     Seal for the age plugin PLUGIN (the program
                                  age-plugin-PLUGIN on the PATH) without
                                  recipient data, as age does with -j;
                                  batchpass is built in (see -p). Can be
                                  repeated.
    -a, --armor                   Write the envelope as text armor (age's
                                  armor with --age).
        --age                     Write an age v1 file, which age reads, for
                                  recipients age knows (see above).
    -p, --passphrase              Seal for a passphrase, asked twice on the
                                  terminal, alone in the envelope.
        --identified              Give every stanza its recipient's key
                                  identifier, which anyone holding the public
                                  keys can read (see above).
        --anonymous               The default: no key identifiers. Kept for
                                  scripts; it now writes a private envelope,
                                  which readers older than private envelopes
                                  refuse (they read --identified).
    -v, --verbose                 Say on standard error who the envelope is
                                  for, by -r flag or file and line, and how
                                  many stanzas of which type it holds.
    -o, --output OUTPUT           Write the envelope to OUTPUT instead of
                                  standard output (see "Output files"). A
                                  binary envelope goes to a terminal only with
                                  -o -.
    -h, --help                    Print this help.

` + outputPointer + `

Examples:
    $ fanseal encrypt -r fanseal_x25519_... -R team.txt -o report.fsl report.pdf
    $ tar cz docs | fanseal encrypt -R team.txt -a > docs.tgz.fsl.txt
    $ curl https://github.com/alice.keys | fanseal encrypt -R - -o n.fsl notes.txt
    $ fanseal encrypt -p -a -o notes.fsl notes.txt
    $ fanseal encrypt --age -R ~/.ssh/id_ed25519.pub -a -o notes.age notes.txt
`

const decryptUsage = `fanseal decrypt -i PATH... [-j PLUGIN]... [-o OUTPUT] [INPUT]
fanseal decrypt [-j PLUGIN]... [-o OUTPUT] [INPUT]
`

const decryptHelp = `
Open the envelope INPUT (default: standard input), binary or armored, with
the identities of the files given with -i, and write the payload to OUTPUT
(default: standard output).

A fanseal envelope opens with fanseal's and age's keys, SSH private keys
(ed25519, RSA, ECDSA P-256; one protected by a passphrase asks it on the
terminal) and plugin identities (AGE-PLUGIN-...). One sealed to a
passphrase needs no -i: the passphrase is asked on the
terminal, never taken from an argument or the environment, and a work
factor over 2^22 is refused before it is asked.

An age v1 file (binary, or armored with age's armor) is opened with age's
own library (filippo.io/age v1.3.2), as age opens it: with age's x25519
and post-quantum keys (or fanseal's spelling of them), SSH private keys
(ssh-ed25519 and ssh-rsa; one protected by a passphrase asks it on the
terminal), plugin identities (AGE-PLUGIN-..., through the program
age-plugin-NAME on the PATH), and identity files that age encrypted with a
passphrase (asked on the terminal). An age file sealed to a passphrase
needs no -i: the passphrase is asked on the terminal, never taken from an
argument, and a work factor over 2^22 is refused, as age refuses it; with
-j batchpass it comes from AGE_PASSPHRASE or AGE_PASSPHRASE_FD, and
AGE_PASSPHRASE_MAX_WORK_FACTOR can lower that bound.

With -o, OUTPUT appears only once the whole payload has authenticated;
until then the plaintext is in an unnamed file only you can read, which
vanishes if decrypt fails, is interrupted or is killed (see "Output
files"). On a terminal, decrypt prints a
payload that is text and refuses one that is not ("refusing to output
binary to the terminal"): write it with -o FILE or a pipe, or force it
with -o -.

Options:
    -i, --identity PATH      An identity file: fanseal's, or one age-keygen
                             wrote (x25519 and mlkem768x25519 keys); blank
                             lines and lines starting with # are ignored.
                             One that age encrypted with a passphrase is read
                             after asking it on the terminal. Also an SSH
                             private key (the whole file), or plugin
                             identities. -
                             reads it from standard input (then INPUT must be
                             a file). Can be repeated; identities the
                             envelope is not for are ignored.
    -j PLUGIN                Ask the age plugin PLUGIN (the program
                             age-plugin-PLUGIN on the PATH) without an
                             identity, as age -j does, for an age file or a
                             fanseal envelope; batchpass is built in (see
                             above). Can be repeated.
    -o, --output OUTPUT      Write the payload to OUTPUT; - is standard
                             output, even a terminal.
    -h, --help               Print this help.

` + outputPointer + `

Examples:
    $ fanseal decrypt -i alice.key -o report.pdf report.fsl
    $ fanseal decrypt -i ~/.ssh/id_ed25519 -o notes.txt notes.fsl
    $ fanseal decrypt -o secrets.txt secrets.txt.age
`

const inspectUsage = `fanseal inspect [--json] [-r RECIPIENT]... [-R PATH]... [-i PATH]... [INPUT]
`

const inspectHelp = `
Describe the envelope INPUT (default: standard input), binary or armored,
without opening it: version, cipher, its stanzas with their suites and key
identifiers, and the payload's size. An age file is described as
age-inspect describes it (its --json fields too): version, armor, stanza
types, whether it is post-quantum, and the size of header, armor,
overhead and payload.

Keys given with -r, -R and -i name the stanzas they own: by -r flag, or by
file and line and the comment above the key, as in "team.txt:4 (bob)". The
stanzas none of them owns are counted as unknown. A private envelope (what
encrypt writes unless told otherwise) carries tags instead of key
identifiers, which only a recipient's identity can compute: public keys
(-r, -R) name none of its stanzas, and an identity (-i) finds its own,
"for you, stanza k", with one key agreement. An anonymous envelope
(what older versions wrote when asked) carries neither.

Options:
        --json                    Print the same as JSON.
    -r, --recipient RECIPIENT     A public key to look for. Can be repeated.
    -R, --recipients-file PATH    A file of public keys to look for, as encrypt
                                  reads it. Can be repeated.
    -i, --identity PATH           An identity file whose keys to look for. Can
                                  be repeated.
    -h, --help                    Print this help.

Examples:
    $ fanseal inspect report.fsl
    $ fanseal inspect -i alice.key report.fsl
    $ fanseal inspect --json -R team.txt identified.fsl
`

const versionUsage = `fanseal version
fanseal --version
`

const versionHelp = `
Print fanseal's module version and the VCS revision it was built from (as
the Go toolchain recorded them in the binary), the Go version that built
it, and the engines it runs on this CPU: X25519 multiplications eight
to a pass with AVX-512 (IFMA, or AVX-512F), four with AVX2; P-256 and
secp256k1 eight to a pass with AVX-512 IFMA, four with AVX2; ML-KEM-768
in AVX-512 (avx512), circl's AVX2 code, or the standard library's.

Options:
    -h, --help    Print this help.

Examples:
    $ fanseal --version
    $ fanseal version
`
