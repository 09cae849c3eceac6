import { startWallet } from './wallet-app';

const log = (line: string): void => {
  document.querySelector('#log')!.textContent += `${line}\n`;
};
const { loginAndSign } = startWallet(log);
document.querySelector('#go')!.addEventListener('click', () => {
  const value = (id: string): string => (document.querySelector(`#${id}`) as HTMLInputElement).value;
  loginAndSign(value('account'), value('code')).catch((error: unknown) => log(String(error)));
});
