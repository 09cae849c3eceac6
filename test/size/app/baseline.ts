// The page of main.ts without the library: what `npm run size` subtracts from the wallet page's
// startup in the Vite, webpack and esbuild builds (app/baseline/ is Next.js's).
const log = (line: string): void => {
  document.querySelector('#log')!.textContent += `${line}\n`;
};
log('no wallet');
document.querySelector('#go')!.addEventListener('click', () => {
  const value = (id: string): string => (document.querySelector(`#${id}`) as HTMLInputElement).value;
  log(`click ${value('account')} ${value('code')}`);
});
