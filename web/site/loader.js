// Starts the lab in this page (docs/web.md): checks for WebGL2, picks the build (pthreads
// where the page is cross-origin isolated, one thread otherwise), shows the download's
// progress, and passes the page's query string to the app as its command line:
// ?scene=rain&n=5000&no-settings  runs  collidoscope --scene rain --n 5000 --no-settings.
(function () {
  'use strict';
  const status = document.getElementById('status');
  const statusText = document.getElementById('status-text');
  const bar = document.querySelector('#bar > div');

  function fail(html) {
    status.classList.add('failed');
    statusText.innerHTML = html;
    console.warn('collidoscope: ' + statusText.textContent);
  }

  if (!document.createElement('canvas').getContext('webgl2')) {
    fail('This browser has no WebGL2, which the lab draws with. Recent Chrome, Firefox, ' +
         'Safari and Edge all have it; it may be turned off in the browser\'s settings.');
    return;
  }

  const threaded = self.crossOriginIsolated === true;
  const build = threaded ? 'collidoscope-threads' : 'collidoscope-single';

  const args = [];
  for (const [key, value] of new URLSearchParams(location.search)) {
    args.push('--' + key.replace(/^-+/, ''));
    if (value !== '') args.push(value);
  }
  // The window is the page's size in CSS pixels; SDL scales it by devicePixelRatio.
  if (!args.includes('--size')) {
    args.push('--size', Math.max(320, innerWidth) + 'x' + Math.max(240, innerHeight));
  }

  // Fetches the .wasm with a progress bar, then hands it to Emscripten.
  function instantiateWasm(imports, done) {
    fetch(build + '.wasm').then(async (response) => {
      if (!response.ok) throw new Error(build + '.wasm: HTTP ' + response.status);
      const total = Number(response.headers.get('Content-Length')) || 0;
      const reader = response.body.getReader();
      const chunks = [];
      let received = 0;
      for (;;) {
        const { done: finished, value } = await reader.read();
        if (finished) break;
        chunks.push(value);
        received += value.length;
        if (total) bar.style.width = Math.min(100, 100 * received / total).toFixed(1) + '%';
      }
      const bytes = new Uint8Array(received);
      let at = 0;
      for (const c of chunks) { bytes.set(c, at); at += c.length; }
      statusText.textContent = 'Starting…';
      const { instance, module } = await WebAssembly.instantiate(bytes, imports);
      done(instance, module);
    }).catch((e) => fail('The lab could not load: ' + e.message));
    return {};
  }

  // Files the app kept in the browser (its settings: browser::on_page_hidden) and a file
  // chosen for this tab (a recording to replay: Module.chooseFileAndReload), put back in the
  // app's file system before main() runs.
  function restoreFiles() {
    const put = (path, data) => {
      Module.FS.mkdirTree(path.substring(0, path.lastIndexOf('/')) || '/');
      Module.FS.writeFile(path, data);
    };
    for (let i = 0; i < localStorage.length; ++i) {
      const key = localStorage.key(i);
      if (key.startsWith('collidoscope:/')) put(key.substring('collidoscope:'.length), localStorage.getItem(key));
    }
    const upload = sessionStorage.getItem('collidoscope.upload');
    if (upload) {
      const { path, text } = JSON.parse(upload);
      put(path, text);
    }
  }

  // The app's "Replay a file..." button: the chosen file is kept for this tab, and the page
  // reloads with the flag naming it, as a command line would.
  function chooseFileAndReload(flag) {
    const input = document.getElementById('upload');
    input.onchange = () => {
      const file = input.files[0];
      if (!file) return;
      file.text().then((text) => {
        const path = '/uploads/' + file.name.replace(/[^A-Za-z0-9._-]/g, '_');
        try {
          sessionStorage.setItem('collidoscope.upload', JSON.stringify({ path, text }));
        } catch (e) {
          alert('The file is too large for this browser tab to keep (' + e.message + ').');
          return;
        }
        const query = new URLSearchParams(location.search);
        query.set(flag, path);
        location.search = query.toString();
      });
    };
    input.value = '';
    input.click();
  }

  window.Module = {
    canvas: document.getElementById('canvas'),
    preRun: [() => { try { restoreFiles(); } catch (e) { console.warn('collidoscope: ' + e.message); } }],
    chooseFileAndReload: chooseFileAndReload,
    arguments: args,
    threaded: threaded,
    instantiateWasm: instantiateWasm,
    print: (text) => console.log(text),
    printErr: (text) => console.warn(text),
    onRuntimeInitialized: () => {
      status.remove();
      Module.canvas.focus();
      Module.callMain(args);
    },
    onAbort: (what) => fail('The lab stopped: ' + what),
  };
  const script = document.createElement('script');
  script.src = build + '.js';
  script.onerror = () => fail('The lab could not load ' + build + '.js.');
  document.body.appendChild(script);
})();
