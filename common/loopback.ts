/** Whether a host name or address is this machine's loopback (pure: usable in workflow code too). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1') return true;
  const octets = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return octets !== null && octets.slice(1).every((o) => Number(o) <= 255);
}
