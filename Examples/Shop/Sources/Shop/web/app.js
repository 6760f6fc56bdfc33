// The shop page: adds to the native cart, signs in (the server sets an HttpOnly session and a visible theme
// cookie), uploads a photo with FormData, and posts what it checked to its host (`hybrid.post('checks', …)`).
'use strict';

const checks = {};
function check(name, ok, detail = '') {
  checks[name] = Boolean(ok);
  const item = document.createElement('li');
  item.className = ok ? 'pass' : 'fail';
  item.textContent = detail ? `${name}: ${detail}` : name;
  document.getElementById('checks').append(item);
}

async function shop() {
  // The native cart module (ShopCart) through its proxy: a promise per call, typed errors as rejections. Its types
  // (types/modules.d.ts) are written from the Swift by `hybrid types`.
  const cart = hybrid.module('cart');
  await cart.add({ sku: 'sencha', price: 6.5 });
  const summary = await cart.add({ sku: 'oolong', price: 9 });
  document.getElementById('count').textContent = summary.count;
  document.getElementById('total').textContent = summary.total.toFixed(2);
  check('cart', summary.count === 2 && summary.total === 15.5, `${summary.count} items`);
  const refused = await cart.add({ sku: '', price: -1 }).then(() => null, (error) => error);
  check('cart refuses a bad item', refused !== null && refused.code === 'bad_arguments');

  // Sign in: the server's Set-Cookie lands in the jar, and document.cookie shows it by the time fetch resolves
  // (once the page's first copy arrived: hybridCookies.ready); the page sees the visible cookie, never the session.
  await hybridCookies.ready;
  const login = await fetch('/api/login', { method: 'POST', body: JSON.stringify({ user: 'ana' }) });
  check('sign in', login.ok, `HTTP ${login.status}`);
  check('visible cookie', document.cookie.includes('theme=green'), document.cookie);
  check('HttpOnly session hidden', !document.cookie.includes('session'));

  // Upload a File with FormData: the body reaches the server whole, with the session cookie.
  const photo = new File([new Uint8Array(256 * 1024).fill(7)], 'photo.png', { type: 'image/png' });
  const form = new FormData();
  form.append('note', 'for the gift box');
  form.append('photo', photo);
  const upload = await (await fetch('/api/upload', { method: 'POST', body: form })).json();
  check('upload', upload.bytes > photo.size && upload.signedIn, `${upload.bytes} bytes`);
}

shop()
  .catch((error) => check('shop', false, String(error)))
  .finally(() => hybrid.post('checks', checks));
