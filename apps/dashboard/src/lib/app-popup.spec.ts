import { messageOrigin } from './app-popup';

describe('app popups', () => {
  it('posts only to a web origin of the redirect URI, never to a custom scheme or a malformed one', () => {
    expect(messageOrigin('https://app.example/callback?x=1')).toBe('https://app.example');
    expect(messageOrigin('http://localhost:3002/')).toBe('http://localhost:3002');
    expect(messageOrigin('com.example.app:/cb')).toBeNull();
    expect(messageOrigin('javascript:alert(1)')).toBeNull();
    expect(messageOrigin('not a url')).toBeNull();
  });
});
