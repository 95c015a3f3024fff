/** The one redaction of secrets (src/engine/model/redaction.ts): userinfo, query values, fragments, secret headers. */
import { REDACTED, redactSecrets } from '../../src/engine/model';

describe('redactSecrets', () => {
  it.each([
    ['https://user:password@api.example.com/hook?code=k3y&page=2#token=t', 'https://***@api.example.com/hook?code=***&page=***#***'],
    ['https://token@api.example.com/', 'https://***@api.example.com/'],
    ['http://a:b@127.0.0.1:8080', 'http://***@127.0.0.1:8080'],
    ['https://[::1]:8443/x?sig=abc', 'https://[::1]:8443/x?sig=***'],
    ['https://api.example.com/plain/path', 'https://api.example.com/plain/path'],
    ['https://api.example.com/x?bare-key&a=', 'https://api.example.com/x?***&a=***'],
    ['https://api.example.com/x?', 'https://api.example.com/x?'],
    ['https://api.example.com/x#/route?code=frag', 'https://api.example.com/x#***'],
    ['https://u%40x:p%3A@host.example/p@q', 'https://***@host.example/p@q'],
    ['https://api.example.com/x?next=https://u:p@other.example/?k=v', 'https://api.example.com/x?next=***'],
  ])('redacts the URL %s', (url, redacted) => {
    expect(redactSecrets(url)).toBe(redacted);
  });

  it('redacts every URL in a text and keeps the words and punctuation around them', () => {
    expect(redactSecrets('POST https://u:p@a.example/x?code=1 failed (see http://b.example/y?key=2).')).toBe('POST https://***@a.example/x?code=*** failed (see http://b.example/y?key=***).');
    expect(redactSecrets('no URL here: user:password@host?code=1')).toBe('no URL here: user:password@host?code=1');
    expect(redactSecrets('"https://u:p@a.example/?k=v"')).toBe('"https://***@a.example/?k=***"');
  });

  it('copies objects and arrays with their strings redacted and the values of secret headers replaced, whatever their case', () => {
    const request = {
      method: 'POST',
      url: 'https://u:p@a.example/?code=1',
      headers: { Authorization: 'Bearer eyJ', 'X-Functions-Key': 'k', 'content-type': 'application/json', 'Ocp-Apim-Subscription-Key': 's' },
    };
    expect(redactSecrets(request)).toEqual({
      method: 'POST',
      url: 'https://***@a.example/?code=***',
      headers: { Authorization: REDACTED, 'X-Functions-Key': REDACTED, 'content-type': 'application/json', 'Ocp-Apim-Subscription-Key': REDACTED },
    });
    expect(request.url).toBe('https://u:p@a.example/?code=1');
    expect(redactSecrets([{ cookie: 'a=b' }, 'https://x.example/?a=b', 3, null])).toEqual([{ cookie: REDACTED }, 'https://x.example/?a=***', 3, null]);
  });

  it('leaves other values and class instances alone', () => {
    const error = new Error('https://u:p@a.example');
    expect(redactSecrets(error)).toBe(error);
    expect(redactSecrets(42)).toBe(42);
    expect(redactSecrets(undefined)).toBeUndefined();
  });
});
