import {describe, expect, it} from 'vitest'
import {varnishVcl, type VarnishVclOptions} from '../../server/edge/varnish-vcl.ts'

const base: VarnishVclOptions = {
  backends: [{host: '127.0.0.1', port: 3000}],
  purgers: [],
  operators: [],
  token: 'an-edge-purge-token-of-some-length',
}

/** The body of one named ACL in the generated VCL, an entry a line. */
function acl(vcl: string, name: string): string[] {
  const body = new RegExp(`^acl ${name} \\{\\n([^}]*)\\}`, 'm').exec(vcl)?.[1] ?? ''
  return body
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
}

describe('the operator ACL of the generated VCL (--operator-acl)', () => {
  it('is loopback when none is named', () => {
    expect(acl(varnishVcl(base), 'operators')).toEqual(['"127.0.0.1";', '"::1";'])
  })

  it('takes addresses and CIDR ranges, comma-separated or repeated, IPv4 and IPv6', () => {
    const vcl = varnishVcl({...base, operators: ['10.0.0.0/8,192.168.1.5', ' 2001:db8::/32 ', '::ffff:0:0/96']})
    expect(acl(vcl, 'operators')).toEqual(['"10.0.0.0"/8;', '"192.168.1.5";', '"2001:db8::"/32;', '"::ffff:0:0"/96;'])
    expect(acl(vcl, 'purgers')).toEqual(['"127.0.0.1";', '"::1";'])
  })

  it('answers the operator pages only from it, and 404 to anyone else', () => {
    const recv = /sub vcl_recv \{[\s\S]*?\n\}/.exec(varnishVcl(base))?.[0] ?? ''
    expect(recv).toContain(
      [
        '    if (req.url ~ "^(?i)/+(status|metrics)(/|[?#]|$)") {',
        '        if (client.ip !~ operators) {',
        '            return (synth(404, "Not Found"));',
        '        }',
        '        return (pass);',
        '    }',
      ].join('\n'),
    )
  })

  it.each([
    ['10.0.0.1/8', '--operator-acl: 10.0.0.1/8 has bits set past its /8 prefix; did you mean 10.0.0.0/8?'],
    ['2001:db8::1/32', '--operator-acl: 2001:db8::1/32 has bits set past its /32 prefix; did you mean 2001:db8::/32?'],
    ['10.0.0.0/33', '--operator-acl: 10.0.0.0/33: the prefix length must be a number from 0 to 32'],
    ['::/129', '--operator-acl: ::/129: the prefix length must be a number from 0 to 128'],
    ['10.0.0.0/08', '--operator-acl: 10.0.0.0/08: the prefix length must be a number from 0 to 32'],
    ['10.0.0.0/', '--operator-acl: 10.0.0.0/: the prefix length must be a number from 0 to 32'],
    ['999.1.1.1', '--operator-acl: not an IP address or CIDR range: "999.1.1.1"'],
    ['10.1', '--operator-acl: not an IP address or CIDR range: "10.1"'],
    ['admin.example.org', '--operator-acl: not an IP address or CIDR range: "admin.example.org"'],
    ['fe80::1%eth0', '--operator-acl: not an IP address or CIDR range: "fe80::1%eth0"'],
    ['10.0.0.0/8/8', '--operator-acl: not an IP address or CIDR range: "10.0.0.0/8/8"'],
    ['10.0.0.0/8,', '--operator-acl: not an IP address or CIDR range: ""'],
    ['', '--operator-acl: not an IP address or CIDR range: ""'],
    ['"; } sub vcl_recv { return (pass); } acl x { "1.2.3.4', '--operator-acl: not an IP address or CIDR range'],
  ])('refuses %j, naming the option and the mistake', (entry, message) => {
    expect(() => varnishVcl({...base, operators: [entry]})).toThrow(message)
  })

  it('checks --purger the same way', () => {
    expect(() => varnishVcl({...base, purgers: ['10.0.0.1/24']})).toThrow(
      '--purger: 10.0.0.1/24 has bits set past its /24 prefix; did you mean 10.0.0.0/24?',
    )
    expect(acl(varnishVcl({...base, purgers: ['10.0.0.0/24,10.1.0.7']}), 'purgers')).toEqual([
      '"10.0.0.0"/24;',
      '"10.1.0.7";',
    ])
  })
})
