// Contenders
